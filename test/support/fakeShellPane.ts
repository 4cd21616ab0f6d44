/**
 * One tmux pane with a shell in it, for driving the live run programs (programs/runTyping.ts,
 * runAwait.ts) without a tmux server: the pane's options (test/support/fakePane.ts), tmux 3.3a's
 * command queue and `wait-for` (test/support/fakeWaitFor.ts), a screen with a history, paste
 * buffers, and a shell that runs what is pasted into it. A command `work TICKS STATUS` runs for
 * TICKS of the test's clock and ends with STATUS; its trailer then runs the run's template (`@l<id>`)
 * as tmux would (`run -C`), when it is still there. C-c stops the run (its trailer never runs), a
 * respawn replaces the shell, the server's death takes every option and channel with it.
 */
import * as Effect from "effect/Effect"
import { paneRunOptions, pasteBufferPrefix, protocolNames, runOfOption } from "../../src/domain/protocolNames.ts"
import { decodeMark } from "../../src/domain/runRecord.ts"
import { answeredTestOption, templateCommands } from "../../src/domain/runTemplates.ts"
import { TmuxCommandFailed } from "../../src/services/errors.ts"
import { expand, setOption } from "./fakePane.ts"
import { type FakeClient, makeWaitServer, type Outcome } from "./fakeWaitFor.ts"

/** Ticks of the test clock, in milliseconds (the readiness polls' pace). */
export const tickMs = 10

const height = 24
const prompt = "$ "

/** What the world saw happen, in order: what a test holds to the machine's moves. */
export type Seen =
  | { readonly _tag: "Pasted"; readonly runId: string; readonly busy: boolean }
  | { readonly _tag: "Signalled"; readonly runId: string; readonly status: number }
  | { readonly _tag: "Interrupted"; readonly runId: string }
  | {
    readonly _tag: "Marked"
    readonly runId: string
    readonly status: number | null
    readonly list: ReadonlyArray<ReadonlyArray<string>>
  }
  | { readonly _tag: "Withdrawn"; readonly runId: string; readonly recordLeft: boolean }
  | { readonly _tag: "Released"; readonly runId: string }
  | { readonly _tag: "ServerDied" }

/** A run the shell executes. */
interface Running {
  readonly id: string
  readonly endsAt: number
  readonly status: number
}

export const makeShellPane = (paneId = "%0") => {
  const options = new Map<string, string>()
  const buffers = new Map<string, { readonly text: string; readonly runId: string }>()
  const seen: Array<Seen> = []
  let rows: Array<string> = [prompt]
  let cursorX = prompt.length
  let panePid = 100
  let running: Running | undefined
  /** The pasted line not yet entered, and the run whose buffer it came from. */
  let pending: { readonly text: string; readonly runId: string } | undefined
  let now = 0
  /** The list tmux runs now (a signal's woken lists run after it). */
  let current: ReadonlyArray<ReadonlyArray<string>> = []

  const historySize = () => Math.max(0, rows.length - height)
  const variables = (): Record<string, string | number> => ({
    pane_id: paneId,
    pane_pid: panePid,
    pane_tty: "/dev/pts/0",
    pane_width: 80,
    pane_height: height,
    pane_in_mode: 0,
    pane_mode: "",
    alternate_on: 0,
    pane_dead: 0,
    cursor_x: cursorX,
    cursor_y: rows.length - 1 - historySize(),
    history_size: historySize(),
    history_limit: 2000,
    pane_current_command: running === undefined ? "bash" : "work",
    "synchronize-panes": 0,
    "remain-on-exit": options.get("remain-on-exit") ?? "off"
  })
  const lookup = (name: string): string => {
    const variable = variables()[name]
    return variable !== undefined ? String(variable) : options.get(name) ?? ""
  }

  /** A row `-S`/`-E` names, as an index into `rows`. */
  const rowAt = (word: string | undefined, fallback: number): number =>
    word === undefined || word === "-" ? fallback : historySize() + Number(word)
  const capture = (args: ReadonlyArray<string>): string => {
    const flag = (name: string) => args.includes(name) ? args[args.indexOf(name) + 1] : undefined
    const start = Math.max(0, rowAt(flag("-S"), historySize()))
    const end = rowAt(flag("-E"), historySize() + height - 1)
    const shown: Array<string> = []
    for (let row = start; row <= end; row++) shown.push(rows[row] ?? "")
    return shown.map((row) => `${row}\n`).join("")
  }

  const newRow = (text: string) => {
    rows.push(text)
    cursorX = text.length
  }
  const atPrompt = () => newRow(prompt)

  const key = (args: ReadonlyArray<string>) => {
    const words = args.filter((_, index) => index > 1 || !["-t", paneId].includes(args[index]!))
    const last = words.at(-1)
    if (words.includes("-l")) return
    if (last === "C-c") {
      if (running !== undefined) seen.push({ _tag: "Interrupted", runId: running.id })
      running = undefined
      pending = undefined
      rows[rows.length - 1] += "^C"
      atPrompt()
    } else if (last === "Enter" && pending !== undefined && running === undefined) {
      const work = /work ([0-9]+) ([0-9]+)/u.exec(pending.text)
      running = { id: pending.runId, endsAt: now + Number(work?.[1] ?? 0) * tickMs, status: Number(work?.[2] ?? 0) }
      pending = undefined
      // The start mark, when the run has its template.
      const mark = options.get(protocolNames(running.id).markTemplate)
      newRow("")
      if (mark !== undefined) start(templateCommands(mark) ?? [])
    }
  }

  const exec = (command: ReadonlyArray<string>): Outcome => {
    const args = command.slice(1)
    switch (command[0]) {
      case "set-option": {
        const result = setOption(options, args, lookup)
        if (result.error !== undefined) return { error: result.error }
        const name = args.at(-2) ?? ""
        if (name === paneRunOptions.collected) {
          const mark = decodeMark(args.at(-1) ?? "")
          if (mark !== undefined) seen.push({ _tag: "Marked", runId: mark.runId, status: mark.status, list: current })
        }
        const successor = runOfOption("successor", name)
        if (successor !== undefined && args.includes("-o")) seen.push({ _tag: "Released", runId: successor })
        return {}
      }
      case "display-message":
        return { out: `${expand(command.at(-1) ?? "", lookup)}\n` }
      case "capture-pane":
        return { out: capture(args) }
      case "load-buffer": {
        const name = args[args.indexOf("-b") + 1]!
        buffers.set(name, { text: loading, runId: name.slice(-6) })
        return {}
      }
      case "delete-buffer": {
        const name = args[args.indexOf("-b") + 1]!
        if (name.startsWith(pasteBufferPrefix)) {
          // A withdrawal's list unsets the run's record before it deletes the buffer.
          const runId = name.slice(-6)
          seen.push({ _tag: "Withdrawn", runId, recordLeft: options.has(paneRunOptions.record(runId)) })
        }
        buffers.delete(name)
        return {}
      }
      case "paste-buffer": {
        const name = args[args.indexOf("-b") + 1]!
        const buffer = buffers.get(name)
        if (buffer === undefined) return { error: `no buffer ${name}` }
        buffers.delete(name)
        seen.push({ _tag: "Pasted", runId: buffer.runId, busy: running !== undefined })
        rows[rows.length - 1] += buffer.text.split("\n")[0] ?? ""
        cursorX = rows.at(-1)!.length
        pending = buffer
        return {}
      }
      case "send-keys":
        key(args)
        return {}
      case "if-shell": {
        // Only the template's own (`if-shell -F` on whether its run's template is an answered one):
        // its list runs in place, as tmux inserts it right after the if-shell.
        const [, test = "", list = ""] = args
        const option = answeredTestOption(test)
        if (option === undefined) return { error: `unknown if-shell test ${test}` }
        if (!(options.get(option) ?? "").startsWith("copy-mode")) return {}
        for (const inner of templateCommands(list) ?? []) {
          const outcome = exec(inner)
          if ("error" in outcome) return outcome
        }
        return {}
      }
      default:
        return { out: "" }
    }
  }

  let server = makeWaitServer(exec)
  let loading = ""
  /** One tmux client on `commands`, its input on stdin. */
  const start = (commands: ReadonlyArray<ReadonlyArray<string>>, input = ""): FakeClient => {
    const before = current
    current = commands
    loading = input
    const client = server.start(commands)
    current = before
    return client
  }

  /** The world's clock moved on: a run whose time came ends, and its trailer runs. */
  const tick = (at: number) => {
    now = at
    if (running === undefined || running.endsAt > now) return
    const { id, status } = running
    running = undefined
    newRow("out")
    newRow("")
    const template = options.get(protocolNames(id).template)
    if (template !== undefined) {
      seen.push({ _tag: "Signalled", runId: id, status })
      start(templateCommands(`${template}${status}'`) ?? [])
    }
    rows[rows.length - 1] = prompt
    cursorX = prompt.length
  }

  return {
    options,
    seen,
    tick,
    start,
    get server() {
      return server
    },
    get running() {
      return running?.id
    },
    /** The pane's process is replaced: a fresh shell at its prompt; the options stay. */
    respawn: () => {
      if (running !== undefined) seen.push({ _tag: "Interrupted", runId: running.id })
      running = undefined
      pending = undefined
      panePid++
      rows = [prompt]
      cursorX = prompt.length
    },
    /** The tmux server exits and a new one starts with the same pane, fresh. */
    serverDeath: () => {
      server.die()
      seen.push({ _tag: "ServerDied" })
      options.clear()
      buffers.clear()
      running = undefined
      pending = undefined
      panePid++
      rows = [prompt]
      cursorX = prompt.length
      server = makeWaitServer(exec)
    },
    /** The kernel's view of the shell (services/PaneProcess.ts). */
    shell: (pid: number) =>
      pid !== panePid ? undefined : running === undefined
        ? { comm: "bash", inForeground: true, reading: true, foreground: "bash", foregroundGroup: pid, ageMs: 60_000 }
        : {
          comm: "bash",
          inForeground: false,
          reading: false,
          foreground: "work",
          foregroundGroup: pid + 1000,
          ageMs: 60_000
        },
    front: (pid: number) =>
      pid !== panePid || running === undefined
        ? undefined
        : { pid: pid + 1000, program: "work", programIsShell: false, wakes: false, wait: "elsewhere" as const }
  }
}

export type ShellPane = ReturnType<typeof makeShellPane>

/**
 * Where tmux can lose a client in `commands`: before it sent the list, while a command of it waits
 * (`load-buffer -` for the client's input, a plain `wait-for`), and after it ran. Nothing else can
 * come between two commands of one list: tmux runs them in one turn of its loop.
 */
export const killPoints = (commands: ReadonlyArray<ReadonlyArray<string>>): ReadonlyArray<number> => [
  0,
  ...commands.flatMap((command, index) =>
    (command[0] === "load-buffer" && command.at(-1) === "-") ||
      (command[0] === "wait-for" && command.length === 2)
      ? [index]
      : []
  ),
  commands.length
]

/**
 * One invocation against the pane, answered when its list ends: printed output, or tmux's refusal
 * (a `TmuxCommandFailed`). A list blocked in `wait-for` is answered once woken; interrupting the
 * effect kills the client, which tmux keeps as a waiter. With `killAt` (one of `killPoints`), the
 * client is killed there: what came before it ran, a wait there keeps its (killed) waiter, the rest
 * never runs, and the caller sees its client fail.
 */
export const invoke = (
  pane: ShellPane,
  commands: ReadonlyArray<ReadonlyArray<string>>,
  input: string | undefined,
  killAt: number | undefined,
  /** Whether the caller's process is gone: its blocked client lives on, orphaned, when the call ends. */
  callerDied: () => boolean = () => false
) =>
  Effect.suspend(() => {
    const failed = (stderr: string, exitCode = 1) =>
      new TmuxCommandFailed({ command: commands[0]?.[0] ?? "", exitCode, stderr })
    if (killAt !== undefined) {
      const waits = commands[killAt]?.[0] === "wait-for"
      const client = pane.start(commands.slice(0, waits ? killAt + 1 : killAt), input)
      pane.server.kill(client)
      return Effect.fail(failed("", 137))
    }
    const client = pane.start(commands, input)
    return Effect.gen(function*() {
      while (client.state === "waiting" || client.state === "locking" || client.state === "running") {
        yield* Effect.sleep(tickMs)
      }
      if (client.state === "done") return client.out.join("")
      return yield* failed(client.error ?? "server exited unexpectedly")
    }).pipe(Effect.onInterrupt(() =>
      Effect.sync(() => {
        if (callerDied()) pane.server.orphan(client)
        else pane.server.kill(client)
      })
    ))
  })
