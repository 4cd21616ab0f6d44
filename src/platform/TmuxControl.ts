/**
 * One control-mode connection to tmux (`tmux -C`): commands are written to a long-lived client as
 * lines and their answers read back, instead of a tmux client forked per invocation (a fork costs
 * 20 ms; a line, a fraction of one). The client stays attached to a hidden session of its own (a
 * control client must be attached to something); the live layer (TmuxLive.ts) decides which
 * invocations come here and what happens when the connection goes.
 *
 * The protocol, as tmux 3.2-3.3a speaks it: each line we write is one command list; each command
 * that runs answers with `%begin T N F`, its output, then `%end T N F` or `%error T N F`; an error
 * drops the rest of its line; notifications (`%sessions-changed`, …) come only between answers.
 * Output is not escaped: a pane's text that a capture prints can hold a line that looks like a
 * guard. So each command list is followed by marker commands that print a random word nobody else
 * sees (`display-message -p`), one after each command and one on a line of its own: the answer of
 * one command is whatever lies between two markers, from the first `%begin` to the last guard that
 * closes it, and no text a pane shows can end an answer early.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"

/** What a command list answered: the output of the commands that ran, and the error that stopped it. */
export interface ControlAnswer {
  readonly stdout: string
  /** The message of the command that failed (tmux runs none after it); undefined when all ran. */
  readonly error: string | undefined
  /** More output than the caller reads came back: it was read and dropped. */
  readonly tooLarge: boolean
}

/**
 * Why a connection cannot answer: it closed (`why`), or it broke the protocol. `sent` says whether
 * the request had been written: one that was not can go another way; one that was may have run.
 */
export class ControlLost extends Error {
  readonly why: string
  readonly sent: boolean
  constructor(why: string, sent = true) {
    super(`tmux control connection lost: ${why}`)
    this.why = why
    this.sent = sent
  }
}

/** Bytes that go in a quoted argument as octal escapes: controls, DEL, 0xFF and the parser's own. */
const escaped = (byte: number): boolean =>
  byte < 0x20 || byte === 0x7f || byte === 0xff || byte === 0x22 || byte === 0x5c || byte === 0x24 ||
  byte === 0x7e

/** Text that needs no escape at all, the common case. */
const plain = /^[\x20-\x21\x23\x25-\x5b\x5d-\x7d]*$/u

/**
 * One argument as tmux's command parser reads it back byte for byte: in double quotes, with every
 * byte the parser would act on (`"`, `\`, `$`, `~`) and every control byte as a `\ooo` escape.
 * A string has no NUL here: the layer sends input with NUL through a spawned client.
 */
export const quoteArgument = (arg: string): string => {
  if (plain.test(arg)) return `"${arg}"`
  let out = "\""
  for (const byte of Buffer.from(arg, "utf8")) {
    out += escaped(byte) ? `\\${byte.toString(8).padStart(3, "0")}` : String.fromCharCode(byte)
  }
  // Bytes above 0x7F went in one char each: the line is written as latin1, so each goes out as that byte.
  return `${out}"`
}

/**
 * Bytes this process wrote to its control connections, all together: the tmux server read(2)s
 * them, so they count in its `rchar`, which the wait pacer reads as the panes' output
 * (layers/PaneActivityLive.ts) and must leave them out.
 */
let writtenBytes = 0

/** The bytes written to control connections so far (see `writtenBytes`). */
export const controlBytesWritten = (): number => writtenBytes

/** One command as a parser line's part: its name bare (grammar names are plain), its arguments quoted. */
export const quoteCommand = (command: ReadonlyArray<string>): string =>
  [command[0]!, ...command.slice(1).map(quoteArgument)].join(" ")

/**
 * The bytes written for one command list: the commands with a marker after each but the last, then
 * the closing marker on a line of its own (so it runs even when the list stops at an error).
 */
export const requestText = (commands: ReadonlyArray<ReadonlyArray<string>>, markers: ReadonlyArray<string>): string =>
  commands.map((command, i) =>
    i === 0 ? quoteCommand(command) : ` ; display-message -p "${markers[i - 1]}" ; ${quoteCommand(command)}`
  ).join("") + `\ndisplay-message -p "${markers[commands.length - 1]}"\n`

/** A request's state while its answer comes in. */
interface Pending {
  /** The words that end each command's answer; the last ends the request. */
  readonly markers: ReadonlyArray<string>
  readonly limitBytes: number
  readonly resolve: (answer: ControlAnswer) => void
  readonly reject: (error: ControlLost) => void
  /** Lines since the last marker, not yet split into an answer. */
  lines: Array<Buffer>
  bytes: number
  tooLarge: boolean
  stdout: Array<Buffer>
  error: string | undefined
}

const newline = Buffer.from("\n")
const startsWith = (line: Buffer, text: string) => line.toString("latin1", 0, text.length) === text
const isGuard = (line: Buffer) =>
  startsWith(line, "%begin ") || startsWith(line, "%end ") || startsWith(line, "%error ")

/**
 * One command's answer from the lines between two markers: from the first `%begin` to the last line
 * that closes it with the same numbers. Undefined when there is no such answer (a broken stream).
 */
export const answerOf = (
  lines: ReadonlyArray<Buffer>
): { readonly ok: boolean; readonly body: ReadonlyArray<Buffer> } | undefined => {
  const begin = lines.findIndex((line) => startsWith(line, "%begin "))
  if (begin === -1) return undefined
  const numbers = lines[begin]!.toString("latin1", 7)
  for (let end = lines.length - 1; end > begin; end--) {
    const line = lines[end]!
    if (line[0] !== 0x25) continue
    const text = line.toString("latin1")
    if (text === `%end ${numbers}`) return { ok: true, body: lines.slice(begin + 1, end) }
    if (text === `%error ${numbers}`) return { ok: false, body: lines.slice(begin + 1, end) }
  }
  return undefined
}

/**
 * Reads a control client's standard output as it comes and answers the requests first in, first
 * out. Lines that are no request's (the attach's own answer, notifications) go to `notice`.
 */
export class ControlReader {
  private readonly queue: Array<Pending> = []
  private rest: Buffer = Buffer.alloc(0)
  private broken: string | undefined
  /** The next line is a marker's own closing guard. */
  private markerGuard = false

  private readonly notice: (line: string) => void

  constructor(notice: (line: string) => void) {
    this.notice = notice
  }

  /** How many requests await their answers. */
  get waiting(): number {
    return this.queue.length
  }

  expect(pending: Omit<Pending, "lines" | "bytes" | "tooLarge" | "stdout" | "error">): void {
    if (this.broken !== undefined) return pending.reject(new ControlLost(this.broken, false))
    this.queue.push({
      ...pending,
      lines: [],
      bytes: 0,
      tooLarge: false,
      stdout: [],
      error: undefined
    })
  }

  /** Fails every request in flight: the connection went. */
  fail(why: string): void {
    this.broken ??= why
    for (const pending of this.queue.splice(0)) pending.reject(new ControlLost(why))
  }

  feed(chunk: Buffer): void {
    const data = this.rest.length === 0 ? chunk : Buffer.concat([this.rest, chunk])
    let from = 0
    for (let at = data.indexOf(0x0a, from); at !== -1; at = data.indexOf(0x0a, from)) {
      this.line(data.subarray(from, at))
      from = at + 1
    }
    // A partial line's bytes are copied: the chunk they came in is otherwise free to go.
    this.rest = from === data.length ? Buffer.alloc(0) : Buffer.from(data.subarray(from))
  }

  private line(line: Buffer): void {
    if (this.markerGuard) {
      this.markerGuard = false
      return
    }
    const pending = this.queue[0]
    // Notifications come between answers, which a request's lines also hold: each goes to the
    // notice (one that a pane's text forged only makes the link look at the sessions once more).
    if (line[0] === 0x25 && !isGuard(line)) this.notice(line.toString("latin1"))
    if (pending === undefined) return
    const marker = pending.lines.length > 0 && line[0] !== 0x25 && line.length < 64
      ? pending.markers.indexOf(line.toString("latin1"))
      : -1
    if (marker !== -1 && startsWith(pending.lines[pending.lines.length - 1]!, "%begin ")) {
      pending.lines.pop()
      this.close(pending, marker === pending.markers.length - 1)
      return
    }
    pending.bytes += line.length + 1
    if (pending.bytes > pending.limitBytes + 4096) pending.tooLarge = true
    // Past the limit only guard-like lines are kept: enough to find where the answer ends.
    if (!pending.tooLarge || line[0] === 0x25) pending.lines.push(line)
  }

  /** One command's answer is complete; the last one's completes the request. */
  private close(pending: Pending, last: boolean): void {
    this.markerGuard = true
    const lines = pending.lines
    pending.lines = []
    if (lines.length > 0 || !last) {
      const answer = answerOf(lines)
      if (answer === undefined) {
        // Lines with no answer: a protocol we do not understand. Nothing more on this connection is trusted.
        const why = `an answer came without its guards: ${
          JSON.stringify(Buffer.concat(lines.slice(0, 3).flatMap((line) => [line, newline])).toString("utf8"))
        }`
        this.fail(why)
        return
      }
      const body = Buffer.concat(answer.body.flatMap((line) => [line, newline]))
      if (answer.ok) pending.stdout.push(body)
      // A line tmux could not parse says so; a spawned client's argv is parsed too, and says it without the prefix.
      else pending.error = body.toString("utf8").trim().replace(/^parse error: /u, "")
    }
    if (!last) return
    this.queue.shift()
    pending.resolve({
      stdout: pending.tooLarge ? "" : Buffer.concat(pending.stdout).toString("utf8"),
      error: pending.error,
      tooLarge: pending.tooLarge
    })
  }
}

/** The one line the hidden session's pane shows, to a person who attaches to it. */
const paneNotice = (serverPid: number) =>
  `This session is libtmux-mcp's connection to tmux (MCP server pid ${serverPid}); its tools do not show it. ` +
  `It ends when that server stops. Detach (prefix d) or switch sessions to leave it; killing it makes the server ` +
  `connect again.`

/**
 * What the hidden session's pane runs: it prints its one line, then watches this process (its pid,
 * and its start time when known, so a reused pid does not count) every 2 s, and once it is gone
 * kills the session. The session is not set to `destroy-unattached`: tmux 3.3a's server crashes when
 * that destroys a session, as its control client exits, while any client's `wait-for` is pending,
 * and a `kill-session` does not. A watcher that can read nothing of /proc keeps to `kill -0`.
 */
const paneScript = [
  `printf '%s\\n' "$1"; me=$2; started=$3`,
  "alive() { if [ -z \"$started\" ]; then kill -0 \"$me\" 2>/dev/null; return; fi",
  "  read -r s < /proc/$me/stat 2>/dev/null || return 1; set -- ${s##*) }; [ \"${20}\" = \"$started\" ]; }",
  "while alive; do sleep 2; done",
  `exec "$4" -S "$5" kill-session -t "=$6"`
].join("\n")

/** How a connection is opened. */
export interface ControlOptions {
  readonly bin: string
  /** The socket's path, for the hidden pane's own `kill-session`. */
  readonly socketPath: string
  /** This process, as the hidden pane watches it: its pid and start time ("" when unknown). */
  readonly owner: { readonly pid: number; readonly started: string }
  /** Global flags that name the socket explicitly (`-L name` or `-S path`). */
  readonly socketFlags: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string | undefined>>
  /** The hidden session's name. */
  readonly session: string
  /** Notifications, lines starting with `%` outside any answer (`%sessions-changed`, `%exit`). */
  readonly notice: (line: string) => void
  /** The connection closed (the client exited or was killed); `why` says how. */
  readonly closed: (why: string) => void
}

/** An open connection. */
export interface ControlConnection {
  /** Sends one command list; answers once every command ran or one failed. */
  readonly send: (commands: ReadonlyArray<ReadonlyArray<string>>, limitBytes: number) => Promise<ControlAnswer>
  /** Whether it still takes requests. */
  readonly isOpen: () => boolean
  /** Ends the client and fails what is in flight (its session stays for the next; `paneScript`). */
  readonly close: (why: string) => void
}

/**
 * The control client's argv: attached to the hidden session (made if need be, never the server:
 * `-N`), whose one pane runs `paneScript`.
 */
const controlArgv = (options: ControlOptions): Array<string> => [
  "-u",
  ...options.socketFlags,
  "-N",
  "-C",
  "new-session",
  "-A",
  "-s",
  options.session,
  // A window name given keeps it: tmux's automatic rename would show the pane's command instead.
  "-n",
  "libtmux-mcp",
  "-f",
  "ignore-size,no-output",
  "--",
  "sh",
  "-c",
  paneScript,
  "sh",
  paneNotice(options.owner.pid),
  String(options.owner.pid),
  options.owner.started,
  options.bin,
  options.socketPath,
  options.session
]

/**
 * Reads the client's output: first the attach's own answer, which resolves the promise with its
 * error (undefined when it attached), then everything after it goes to `reader`.
 *
 * Nothing is written until the attach has answered: tmux may run lines read from the client's
 * input before the command on its command line, and a line sent early would run before the
 * session exists. The attach's answer ends at the first closing guard; its error is the body.
 */
const readAttach = (stdout: NodeJS.ReadableStream, reader: ControlReader): Promise<string | undefined> => {
  let attachedLines: Array<string> | undefined = []
  let answerAttach: (error: string | undefined) => void = () => undefined
  const attach = new Promise<string | undefined>((resolve) => (answerAttach = resolve))
  let early = ""
  stdout.on("data", (chunk: Buffer) => {
    if (attachedLines === undefined) return reader.feed(chunk)
    early += chunk.toString("latin1")
    let at = early.indexOf("\n")
    while (at !== -1 && attachedLines !== undefined) {
      const line = early.slice(0, at)
      early = early.slice(at + 1)
      if (line.startsWith("%end ") || line.startsWith("%error ")) {
        const body = attachedLines.filter((seen) => !seen.startsWith("%"))
        attachedLines = undefined
        answerAttach(line.startsWith("%error ") ? Buffer.from(body.join("\n"), "latin1").toString("utf8") : undefined)
      } else attachedLines.push(line)
      at = early.indexOf("\n")
    }
    if (attachedLines === undefined && early !== "") reader.feed(Buffer.from(early, "latin1"))
  })
  return attach
}

/**
 * The connection once the attach answered and the hidden session's options are set; a client that
 * closed first, or either step's error, rejects with a ControlLost and closes the connection.
 */
const finishOpening = (
  attach: Promise<string | undefined>,
  closedEarly: Promise<string | undefined>,
  connection: ControlConnection,
  session: string
): Promise<ControlConnection> =>
  Promise.race([attach.then((error) => ({ error })), closedEarly.then((why) => ({ lost: why }))]).then(
    async (attached) => {
      if ("lost" in attached) throw new ControlLost(attached.lost ?? "it exited")
      if (attached.error !== undefined) throw new ControlLost(attached.error)
      // Whatever the user's configuration says for others: its own pane ends it (see `paneScript`), and
      // a client on it is detached when it goes, not moved to a session of the user's.
      const set = await connection.send([
        ["set-option", "-t", session, "destroy-unattached", "off"],
        ["set-option", "-t", session, "detach-on-destroy", "on"]
      ], 1 << 20)
      if (set.error !== undefined) throw new ControlLost(set.error)
      return connection
    }
  ).catch((error: unknown) => {
    connection.close("it did not open")
    throw error instanceof ControlLost ? error : new ControlLost(String(error))
  })

/**
 * Starts a control client attached to the hidden session (made if need be, never the server:
 * `-N`), sets that session's options, and resolves once tmux answered both; it rejects with what
 * tmux said when it cannot (no server, most often).
 */
export const openControl = (options: ControlOptions): Promise<ControlConnection> => {
  const env = { ...options.env }
  // The socket is named by the flags; a $TMUX would make tmux refuse to attach "nested".
  delete env.TMUX
  const child: ChildProcess = spawn(options.bin, controlArgv(options), {
    cwd: "/",
    env,
    stdio: ["pipe", "pipe", "pipe"]
  })
  const tag = randomBytes(12).toString("hex")
  let counter = 0
  let ended: string | undefined
  const reader = new ControlReader(options.notice)
  const stderr: Array<Buffer> = []
  const end = (why: string) => {
    if (ended !== undefined) return
    ended = why
    reader.fail(why)
    options.closed(why)
  }
  const attach = readAttach(child.stdout!, reader)
  child.stderr!.on("data", (chunk: Buffer) => {
    if (stderr.length < 16) stderr.push(chunk)
  })
  child.stdin!.on("error", () => undefined)
  child.on("error", (error) => end(error.message))
  child.on("close", (code, signal) => {
    const said = Buffer.concat(stderr).toString("utf8").trim()
    end(said !== "" ? said : `the control client exited (${signal ?? `status ${code}`})`)
  })
  const send = (commands: ReadonlyArray<ReadonlyArray<string>>, limitBytes: number) =>
    new Promise<ControlAnswer>((resolve, reject) => {
      if (ended !== undefined) return reject(new ControlLost(ended, false))
      const markers = Array.from({ length: Math.max(1, commands.length) }, () => `fence-${tag}-${++counter}`)
      reader.expect({ markers, limitBytes, resolve, reject })
      const bytes = Buffer.from(
        commands.length === 0 ? `display-message -p "${markers[0]}"\n` : requestText(commands, markers),
        "latin1"
      )
      writtenBytes += bytes.length
      child.stdin!.write(bytes)
    })
  const connection: ControlConnection = {
    send,
    isOpen: () => ended === undefined,
    close: (why) => {
      end(why)
      child.stdin!.end()
      child.kill("SIGKILL")
    }
  }
  const closedEarly = new Promise<string | undefined>((resolve) =>
    child.on("close", () => resolve(ended ?? "it exited"))
  )
  return finishOpening(attach, closedEarly, connection, options.session)
}

/** Commands that only read: answering one again after a lost connection changes nothing. */
const readOnly = new Set([
  "list-sessions",
  "list-windows",
  "list-panes",
  "display-message",
  "capture-pane",
  "show-options",
  "show-environment",
  "show-hooks",
  "list-buffers"
])

/** Commands that never wait for anything outside themselves: what a control connection may carry. */
const carried = new Set([
  ...readOnly,
  "rename-session",
  "rename-window",
  "select-window",
  "next-window",
  "previous-window",
  "last-window",
  "select-pane",
  "select-layout",
  "resize-window",
  "resize-pane",
  "move-window",
  "swap-pane",
  "copy-mode",
  "set-option",
  "send-keys",
  "kill-session",
  "kill-window",
  "kill-pane",
  "clear-history",
  "paste-buffer",
  "delete-buffer",
  "set-buffer",
  "wait-for"
])

/** The most text a paste sends over the connection; a larger one goes through a spawned client's input. */
export const controlPasteBytes = 64 * 1024

/**
 * Whether a command names what it acts on, so that it cannot fall to the control client's own
 * session: a `-t`, or a form that has no target (every session's, a global option, a buffer, a signal).
 */
const namesItsObject = (command: ReadonlyArray<string>): boolean => {
  const [name, ...args] = command
  if (args.includes("-t")) return true
  // Buffers are the server's, whatever session a command falls to.
  if (name === "list-sessions" || name === "list-buffers" || name === "delete-buffer" || name === "set-buffer") {
    return true
  }
  if (name === "list-windows" || name === "list-panes") return args.includes("-a")
  if (name === "wait-for") return args.includes("-S") || args.includes("-L") || args.includes("-U")
  if (name === "show-options" || name === "show-hooks" || name === "show-environment" || name === "set-option") {
    return args.includes("-g") || args.includes("-s")
  }
  return false
}

/**
 * The commands to send over the connection for one invocation, or undefined when it goes through
 * a spawned client: a command that may wait (a plain `wait-for`), start a process, or fall to the
 * hidden session, a start folder, or input that is large or holds NUL. Input goes as `set-buffer`
 * (the control client's own standard input is the connection).
 */
export const controlRoute = (
  commands: ReadonlyArray<ReadonlyArray<string>>,
  options: { readonly cwd?: string | undefined; readonly input?: string | undefined }
): ReadonlyArray<ReadonlyArray<string>> | undefined => {
  if (options.cwd !== undefined || commands.length === 0) return undefined
  const input = options.input
  if (input !== undefined && (input.includes("\u0000") || Buffer.byteLength(input, "utf8") > controlPasteBytes)) {
    return undefined
  }
  const sent = input === undefined ?
    commands :
    commands.map((command) =>
      command[0] === "load-buffer" && command[command.length - 1] === "-"
        ? ["set-buffer", ...command.slice(1, -1), "--", input]
        : command
    )
  return sent.every((command) => carried.has(command[0]!) && namesItsObject(command)) ? sent : undefined
}

/** Whether every command only reads (so a lost answer may be asked again through a spawned client). */
export const onlyReads = (commands: ReadonlyArray<ReadonlyArray<string>>): boolean =>
  commands.every((command) => readOnly.has(command[0]!))
