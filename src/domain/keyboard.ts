/**
 * Who holds a pane's keyboard, decided from what the kernel, the terminal's mode and the screen
 * say (the reads are in platform/keyboardProc.ts and the run watcher; this module does no I/O).
 *
 * The rule (docs/control-loop.md has it with the programs it was measured on):
 * - the pane's shell is ready only when it is itself the terminal's foreground, asleep reading it;
 * - a program of the foreground group holds the keyboard only when the kernel shows it asleep
 *   reading or polling the pane's terminal (in another of its threads, where the main one is asleep
 *   elsewhere: `threadWaitOf`): a socket read, a write stalled by flow control, a wait for a child or
 *   a timer is work, whatever the terminal's mode;
 * - a program that polls the terminal together with a socket or a pty master relays the keyboard
 *   elsewhere (`ssh -t`, `sudo` with `use_pty`): what is behind it cannot be seen, so it holds the
 *   keyboard only while the alternate screen is up; a socket the event loop of a language runtime
 *   (node, deno, bun, python, pypy) waits on is the program's own traffic, not a relay;
 * - a program the kernel hides from this user (another user's, or a set-user-ID one such as `su` or
 *   `sudo` asking its password) holds it only as a secret prompt: echo off in canonical mode, a
 *   prompt written before the cursor, the screen holding still;
 * - of a holder, the terminal's mode and the screen tell the kind: echo off in canonical mode is a
 *   secret asked; a pager by its name; raw mode on the alternate screen, on a screen still
 *   changing (at two of the watcher's looks running: one change is tmux drawing late), with rows
 *   drawn below the cursor, or polling with a timeout (it wakes to redraw, as `top` does; an event
 *   loop's epoll timeout is any timer) is a full-screen program, otherwise a line editor (it waits
 *   for a key alone); canonical mode is a prompt when something is written before the cursor, else
 *   a read of standard input. A canonical reader whose screen still changes is not yet blocked.
 */

/** What a blocked run waits for. @category models */
export type BlockKind = "full-screen" | "line-editor" | "pager" | "prompt" | "stdin" | "secret"

/**
 * Why a run's output is what the screen showed, not what the program wrote: a pager or a
 * full-screen program drew it, or the screen's history was cleared under it. @category models
 */
export type ScreenReason = "pager" | "full-screen" | "alternate-screen" | "clear"

/** What a blocked run's kind says of its output. */
export const screenReasonOf = (kind: BlockKind): ScreenReason | undefined =>
  kind === "pager" || kind === "full-screen" ? kind : undefined

/** The kinds, for schemas and docs. */
export const blockKinds: ReadonlyArray<BlockKind> = ["full-screen", "line-editor", "pager", "prompt", "stdin", "secret"]

/**
 * What a process of the terminal's foreground waits on: `reads` the pane's terminal, `relays` it
 * together with a socket or pty master, `unsure` (asleep with the terminal open, the kernel does
 * not say on what), `hidden` (asleep, and the kernel shows this user neither its call nor its
 * descriptors: another user's process, or a set-user-ID one such as `su` or `sudo`), `elsewhere`
 * (asleep on something else), `running`. @category models
 */
export type TtyWait = "reads" | "relays" | "unsure" | "hidden" | "elsewhere" | "running"

/**
 * One process of the foreground group as the kernel shows it. The descriptor reads are functions:
 * `waitOf` asks only for what the call it sleeps in names, so a process asleep elsewhere costs no
 * descriptor read at all. @category models
 */
export interface ProcessWait {
  readonly comm: string
  /** Field 3 of /proc/<pid>/stat. */
  readonly state: string
  /** /proc/<pid>/wchan; `undefined` where the kernel hides it. */
  readonly wchan: string | undefined
  /** /proc/<pid>/syscall; `undefined` where it cannot be read. */
  readonly syscall: string | undefined
  /** What one open descriptor names (/proc/<pid>/fd/N), or `undefined`. */
  readonly target: (fd: number) => string | undefined
  /** What all its open descriptors name (bounded). */
  readonly held: () => ReadonlyArray<string>
  /** The descriptors an epoll descriptor watches (from its fdinfo). */
  readonly watched: (epollFd: number) => ReadonlyArray<number>
  /** The descriptors the poll or select call it sleeps in waits to read (from its arguments), or `undefined`. */
  readonly polled: () => ReadonlyArray<number> | undefined
  /** The file name of its executable (/proc/<pid>/exe), or `undefined`. */
  readonly executable: () => string | undefined
}

/**
 * System call numbers, per architecture, of the calls that say what a sleeping process waits on
 * (`read` includes the socket receives, recvfrom and recvmsg: their first argument is the descriptor).
 */
const syscallTables = {
  x64: { read: [0, 17, 19, 295, 45, 47], poll: [7, 271], select: [23, 270], epoll: [232, 281, 441] },
  arm64: { read: [63, 65, 67, 69, 207, 212], poll: [73], select: [72], epoll: [22, 441] }
} as const

/** How a system call names what it waits on. @category models */
export type CallShape = "read" | "poll" | "select" | "epoll" | "other"

/** The shape of a call by its number on `arch` (`undefined`: an architecture without a table). */
export const callShape = (nr: number, arch: string): CallShape | undefined => {
  const table = (syscallTables as Record<string, (typeof syscallTables)["x64"] | (typeof syscallTables)["arm64"]>)[
    arch
  ]
  if (table === undefined) return undefined
  for (const shape of ["read", "poll", "select", "epoll"] as const) {
    if ((table[shape] as ReadonlyArray<number>).includes(nr)) return shape
  }
  return "other"
}

/**
 * Where a poll or select call keeps its timeout: the argument's index, and whether it is a number or
 * a pointer. Epoll calls are left out: an event loop's timeout is its next timer of any kind (a Node
 * program that has allocated, as `npm init` has, sleeps 8 s for V8's memory reducer), not a redraw.
 */
const timeoutArgs: Record<string, Record<number, readonly [number, "int" | "ptr"]>> = {
  x64: { 7: [2, "int"], 271: [2, "ptr"], 23: [4, "ptr"], 270: [4, "ptr"] },
  arm64: { 73: [2, "ptr"], 72: [4, "ptr"] }
}

/**
 * Whether a process asleep in a poll or select call gave it a timeout: it wakes by itself (to
 * redraw, as `top` does), where a line editor waits for a key alone. An epoll wait never counts.
 */
export const wakesByItself = (syscall: string | undefined, arch: string): boolean => {
  const call = parseSyscall(syscall)
  const where = call === undefined ? undefined : timeoutArgs[arch]?.[call.nr]
  if (call === undefined || where === undefined) return false
  const value = call.args[where[0]] ?? 0
  // An int timeout of -1 (read as 0xffffffff) and a null timeout pointer wait for ever.
  return where[1] === "int" ? (value | 0) !== -1 : value !== 0
}

/** /proc/<pid>/syscall: the call number and its arguments, or `undefined` (running, unreadable). */
export const parseSyscall = (text: string | undefined) => {
  const fields = (text ?? "").trim().split(" ")
  if (fields.length < 2 || !/^[0-9]+$/u.test(fields[0]!)) return undefined
  return { nr: Number(fields[0]), args: fields.slice(1, 7).map((field) => Number(field)) }
}

const isTerminal = (target: string | undefined, tty: string) => target === tty || target === "/dev/tty"
const isPtyMaster = (target: string | undefined) => target === "/dev/ptmx" || target === "/dev/pts/ptmx"
const isSocket = (target: string | undefined) => target?.startsWith("socket:") === true

/**
 * Language runtimes whose one event loop waits on the program's own sockets beside the terminal (`npm
 * init` asks while npm's update check is still connected): a socket there is the program's traffic.
 */
const eventLoopRuntime = /^(node|nodejs|deno|bun|python[0-9.]*t?|pypy[0-9.]*)$/u

/**
 * Whether descriptors beside the terminal relay the keyboard elsewhere: a pty master always (`sudo`
 * with `use_pty`, `script`), a socket (`ssh -t`) when `socketRelays` says so, asked only when one is
 * there: each reader of the descriptors knows what else a socket may be.
 */
const relaysThrough = (targets: ReadonlyArray<string | undefined>, socketRelays: () => boolean) =>
  targets.some(isPtyMaster) || targets.some(isSocket) && socketRelays()

/** A socket an event loop waits on is a relay's unless the loop is a language runtime's (its own traffic). */
const notRuntime = (view: ProcessWait) => () => !eventLoopRuntime.test(view.executable() ?? "")
/** A descriptor that wakes nobody: regular files, /dev/null, /proc files. */
const isInert = (target: string) => target.startsWith("/") && !target.startsWith("/dev/") || target === "/dev/null"

const among = (fds: ReadonlyArray<number>, view: ProcessWait, tty: string): TtyWait => {
  const targets = fds.map(view.target)
  if (!targets.some((target) => isTerminal(target, tty))) return "elsewhere"
  return relaysThrough(targets, notRuntime(view)) ? "relays" : "reads"
}

/** What the process's open descriptors alone suggest, when the call's own descriptors are unknown. */
const byHeld = (view: ProcessWait, tty: string, certain: boolean): TtyWait => {
  const targets = view.held()
  if (!targets.some((target) => isTerminal(target, tty))) return "elsewhere"
  // Not knowing what the call waits on, a runtime's socket may be a server it runs (`npm run dev`): work.
  if (relaysThrough(targets, () => true)) return "relays"
  return certain && targets.every((target) => isTerminal(target, tty) || isInert(target)) ? "reads" : "unsure"
}

/** Where waits that read or poll a terminal sleep. */
const terminalWaits = ["n_tty_read", "wait_woken", "poll_schedule_timeout", "do_select", "do_epoll_wait", "ep_poll"]

/** Whether a wait channel may be a wait on a terminal (`undefined`: hidden, so it may). */
export const mayWaitOnTerminal = (wchan: string | undefined): boolean =>
  wchan === undefined || terminalWaits.some((wait) => wchan.startsWith(wait))

/** What one process of the foreground waits on (see `TtyWait`), on architecture `arch`. */
export const waitOf = (view: ProcessWait, tty: string, arch: string): TtyWait => {
  if (view.state !== "S") return view.state === "R" ? "running" : "elsewhere"
  // Every wait on a terminal sleeps in one of these: anything else (a child, a timer, a pipe) is work.
  if (!mayWaitOnTerminal(view.wchan)) return "elsewhere"
  const call = parseSyscall(view.syscall)
  const shape = call === undefined ? undefined : callShape(call.nr, arch)
  if (call !== undefined && shape !== undefined) {
    const first = call.args[0] ?? -1
    switch (shape) {
      case "read":
        return isTerminal(view.target(first), tty) ? "reads" : "elsewhere"
      case "epoll":
        return among(view.watched(first), view, tty)
      case "poll":
      case "select": {
        const polled = view.polled()
        return polled === undefined ? byHeld(view, tty, true) : among(polled, view, tty)
      }
      case "other":
        return "elsewhere"
    }
  }
  // No call and no descriptor to go by: the kernel hides the process from this user. What it waits
  // on is left to the terminal's mode and the screen, which tell a password prompt alone (classify).
  if (view.held().length === 0) return "hidden"
  // No call to go by: the wait channel. A terminal read is certain; the others also serve sockets and writes.
  const held = byHeld(view, tty, false)
  return view.wchan?.startsWith("n_tty_read") === true && held !== "relays" ? "reads" : held
}

/** Whether a thread sleeps in a call that waits on a socket (a read of one, or a poll or epoll over one). */
export const awaitsSocket = (view: ProcessWait, arch: string): boolean => {
  const call = parseSyscall(view.syscall)
  const shape = call === undefined ? undefined : callShape(call.nr, arch)
  const first = call?.args[0] ?? -1
  switch (shape) {
    case "read":
      return isSocket(view.target(first))
    case "epoll":
      return view.watched(first).some((fd) => isSocket(view.target(fd)))
    case "poll":
    case "select":
      return (view.polled() ?? []).some((fd) => isSocket(view.target(fd)))
    default:
      return false
  }
}

/**
 * What a thread other than a process's main one waits on, read when the main one is asleep elsewhere:
 * `reads` or `relays` only where its call can be read, else `elsewhere` (a Go program's idle
 * netpoller, or any thread the wait channel alone would leave unsure). A thread's read of the
 * terminal is a relay's in a process holding a pty master, or a socket that another of its threads
 * waits on (`socketAwaited`): `docker exec -it` reads the terminal in one goroutine and the daemon's
 * answers in another. A socket nobody waits on (a JVM's) leaves a prompt a prompt.
 */
export const threadWaitOf = (
  view: ProcessWait,
  tty: string,
  arch: string,
  socketAwaited: () => boolean
): TtyWait => {
  if (view.syscall === undefined) return "elsewhere"
  const wait = waitOf(view, tty, arch)
  if (wait === "relays") return wait
  if (wait !== "reads") return "elsewhere"
  return relaysThrough(view.held(), socketAwaited) ? "relays" : "reads"
}

const rank: Record<TtyWait, number> = { reads: 0, relays: 1, unsure: 2, hidden: 3, elsewhere: 4, running: 5 }

/** The process that speaks for a foreground group: the one closest to holding the keyboard. */
export const pickFront = <A extends { readonly wait: TtyWait }>(members: ReadonlyArray<A>): A | undefined =>
  members.reduce<A | undefined>(
    (best, member) => best === undefined || rank[member.wait] < rank[best.wait] ? member : best,
    undefined
  )

/** The terminal's line discipline, as `tcgetattr` reads it. @category models */
export interface TerminalMode {
  readonly icanon: boolean
  readonly echo: boolean
}

/** What the screen shows while a reader is suspected. @category models */
export interface ScreenFacts {
  readonly alternate: boolean
  /** The screen is being redrawn: its rows changed between each of the looks taken while the reader was suspected. */
  readonly changing: boolean
  /** Something is written on the cursor's row before the cursor. */
  readonly prompted: boolean
  /** Rows below the cursor's row hold text (a program drew the whole screen). */
  readonly drawnBelow: boolean
}

/** Everything the decision needs. @category models */
export interface KeyboardFacts {
  /** The pane's shell is itself the terminal's foreground. */
  readonly shellInFront: boolean
  /** The command name of the process that speaks for the foreground. */
  readonly program: string
  /** Whether that process is a shell (a `read` builtin asks, not a program). */
  readonly programIsShell: boolean
  readonly wait: TtyWait
  /** The reader's wait has a timeout: it wakes by itself. */
  readonly wakes: boolean
  /** Read only once the kernel suspects a holder. */
  readonly mode: TerminalMode | undefined
  readonly screen: ScreenFacts | undefined
}

/** Who holds the keyboard. `Suspect`: the kernel shows a reader; the mode and screen are still to read. */
export type Keyboard =
  | { readonly _tag: "Ready" }
  | { readonly _tag: "Working" }
  | { readonly _tag: "Suspect"; readonly program: string }
  | { readonly _tag: "Blocked"; readonly kind: BlockKind; readonly program: string }

/** Programs that page text: less, more, most, pg, and Debian's `pager` alternative. */
const pagers = new Set(["less", "more", "most", "pg", "pager", "lv", "moar", "ov"])

/** Whether a command name is a pager's. */
export const isPager = (program: string): boolean => pagers.has(program)

const blocked = (kind: BlockKind, program: string): Keyboard => ({ _tag: "Blocked", kind, program })

/** Decides who holds the keyboard (see the module's header for the rule). */
export const classify = (facts: KeyboardFacts): Keyboard => {
  const { mode, program, screen, wait } = facts
  if (facts.shellInFront) return wait === "reads" || wait === "unsure" ? { _tag: "Ready" } : { _tag: "Working" }
  if (wait === "elsewhere" || wait === "running") return { _tag: "Working" }
  // A relay's own mode says nothing of what runs behind it: only the screen is read for it.
  if (wait === "relays" && screen !== undefined) {
    return screen.alternate ? blocked("full-screen", program) : { _tag: "Working" }
  }
  if (mode === undefined || screen === undefined) return { _tag: "Suspect", program }
  // Of a hidden process only a password prompt is told: echo off, a prompt before the cursor, nothing moving.
  if (wait === "hidden") {
    return mode.icanon && !mode.echo && screen.prompted && !screen.changing
      ? blocked("secret", program)
      : { _tag: "Working" }
  }
  // Without the kernel's word on the descriptor, output still arriving says it is a writer, not a reader.
  if (wait === "unsure" && screen.changing) return { _tag: "Working" }
  if (mode.icanon && !mode.echo) return blocked("secret", program)
  if (isPager(program)) return blocked("pager", program)
  if (!mode.icanon) {
    const drawing = screen.alternate || screen.changing || screen.drawnBelow || facts.wakes
    return blocked(drawing ? "full-screen" : "line-editor", program)
  }
  if (screen.changing) return { _tag: "Working" }
  return blocked(screen.prompted || facts.programIsShell ? "prompt" : "stdin", program)
}

/** Parses `stty -a` output: the two flags the decision needs, or `undefined`. */
export const parseStty = (text: string): TerminalMode | undefined => {
  const words = new Set(text.split(/[\s;]+/u))
  const flag = (name: string) => words.has(name) ? true : words.has(`-${name}`) ? false : undefined
  const icanon = flag("icanon")
  const echo = flag("echo")
  return icanon === undefined || echo === undefined ? undefined : { icanon, echo }
}
