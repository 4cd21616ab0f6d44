/**
 * The control connection's life (TmuxControl.ts), behind the one runner: opened on the first
 * invocation it can carry, opened again on a later one after it went, given up for a moment when
 * it cannot open (no server: the spawned client says so), and closed when the hidden sessions are
 * all that is left on the server, so that the server ends when its last session does, as it would
 * without us. An invocation it cannot carry, or any while it is not open, goes through `spawned`.
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { namedIds, notFoundText, refusedId } from "../domain/hiddenTargets.ts"
import { isControlSession } from "../domain/protocolNames.ts"
import {
  TmuxAnswerLost,
  TmuxCommandFailed,
  type TmuxError,
  TmuxOutputTooLarge,
  TmuxTimedOut
} from "../services/errors.ts"
import { isWait, type RunnerOptions } from "../services/Tmux.ts"
import { socketMissing } from "./SocketGuard.ts"
import {
  type ControlConnection,
  ControlLost,
  type ControlOptions,
  controlRoute,
  onlyReads,
  openControl
} from "./TmuxControl.ts"
import { commandLabel, defaultMaxOutputBytes, defaultTimeoutMs } from "./TmuxExec.ts"

/** How long after a connection could not open the next invocation tries again. */
const retryDelayMs = 1000

/** How long closing waits for its hidden session to be killed. */
const shutdownWaitMs = 500

type Spawned = (
  commands: ReadonlyArray<ReadonlyArray<string>>,
  options: RunnerOptions
) => Effect.Effect<string, TmuxError>

/** A control link: runs what it can carry over the connection and everything else through `spawned`. */
export interface ControlLink {
  readonly run: (
    commands: ReadonlyArray<ReadonlyArray<string>>,
    options: RunnerOptions,
    spawned: Spawned
  ) => Effect.Effect<string, TmuxError>
  /**
   * Over the connection when it is open now, else through `spawned`; never opens one: for the
   * sweeps at startup and close, which must not make a hidden session of their own.
   */
  readonly runIfOpen: (
    commands: ReadonlyArray<ReadonlyArray<string>>,
    options: RunnerOptions,
    spawned: Spawned
  ) => Effect.Effect<string, TmuxError>
  /** A server may have started (this instance started one): the next invocation tries at once. */
  readonly wake: () => void
  /**
   * Opens the connection now, when none is open or opening. tmux 3.3a's server crashes when a control
   * notification (a paste buffer changed, a session made) comes while a control client is still
   * identifying itself (tmux/tmux#4980): opened at startup, the client attaches before this instance's
   * own calls make any, and not in the middle of them.
   */
  readonly open: () => void
  /** Closes the connection for good (the layer's scope ends), its hidden session first. */
  readonly shutdown: () => Promise<void>
}

type State =
  | { readonly kind: "closed"; readonly retryAt: number }
  | { readonly kind: "opening"; readonly opened: Promise<ControlConnection | undefined> }
  | { readonly kind: "open"; readonly connection: ControlConnection }
  | { readonly kind: "shut" }

/** What a link's parts share and change: the connection's state and what the last look at the sessions found. */
interface Link {
  state: State
  checking: boolean
  checkAgain: boolean
  /** The IDs of the hidden sessions on the server, their windows and panes, as last looked: never targets. */
  hiddenIds: Set<string>
}

/** How a link opens its connection: the client's options (the link adds `notice` and `closed`) and the check. */
interface Opener {
  readonly options: Omit<ControlOptions, "notice" | "closed">
  readonly check: Effect.Effect<void, TmuxError>
}

/**
 * Looks at the server's sessions (on connecting, and when sessions or windows come or go): keeps
 * the hidden sessions' IDs, and when only hidden sessions are left, kills them (their own
 * `detach-on-destroy` detaches a person's client that a `detach-on-destroy off` moved onto one) and
 * closes the connection, so the server ends when its last session does, as it would without us.
 */
const checkSessions = (link: Link, session: string, connection: ControlConnection): Promise<void> => {
  if (link.checking) {
    link.checkAgain = true
    return Promise.resolve()
  }
  link.checking = true
  const format = "#{session_name}\u001f#{session_id}\u001f#{window_id}\u001f#{pane_id}"
  return connection.send([["list-panes", "-a", "-F", format]], 1 << 24).then((answer) => {
    link.checking = false
    if (answer.error !== undefined) return
    const rows = answer.stdout.split("\n").filter((row) => row !== "").map((row) => row.split("\u001f"))
    link.hiddenIds = new Set(rows.filter(([name = ""]) => isControlSession(name)).flatMap(([, ...ids]) => ids))
    if (rows.every(([name = ""]) => isControlSession(name))) {
      // Every instance's, this one's last: one whose connection is down (its session stays for its
      // next) would otherwise keep the server up.
      const names = [...new Set(rows.map(([name = ""]) => name))].filter((name) => name !== session)
      // A line each, so that one already gone stops no other.
      const kills = [...names, session].map((name) =>
        connection.send([["kill-session", "-t", `=${name}`]], 1 << 20).catch(() => undefined)
      )
      void Promise.all(kills).finally(() => connection.close("only hidden sessions are left on the server"))
    } else if (link.checkAgain) {
      link.checkAgain = false
      checkSessions(link, session, connection)
    }
  }, () => {
    link.checking = false
  })
}

/** Why a command is refused: it names a hidden session's pane, window or session. */
const hiddenTarget = (
  hiddenIds: ReadonlySet<string>,
  commands: ReadonlyArray<ReadonlyArray<string>>
): TmuxCommandFailed | undefined => {
  if (hiddenIds.size === 0) return undefined
  const named = namedIds(commands).find(({ id }) => hiddenIds.has(id))
  return named && notFound(named.id, named.command)
}

/** As tmux words a target that names nothing: callers then say what exists instead. */
const notFound = (id: string, command: string) =>
  new TmuxCommandFailed({ command, exitCode: 1, stderr: notFoundText(id) })

/**
 * What a failure of a list sent with `hiddenGuards` first (domain/hiddenTargets.ts) means: a guard's
 * refusal is told as tmux's own for a target that names nothing; any other failure as it was.
 */
export const hiddenRefusal = (commands: ReadonlyArray<ReadonlyArray<string>>, error: TmuxError): TmuxError => {
  if (error._tag !== "TmuxCommandFailed") return error
  const id = refusedId(error.stderr)
  if (id === undefined) return error
  return notFound(id, namedIds(commands).find((named) => named.id === id)?.command ?? error.command)
}

/** Opens the connection (the check first), the link `opening` meanwhile; undefined when it cannot open. */
const openConnection = (link: Link, { check, options }: Opener): Promise<ControlConnection | undefined> => {
  let connection: ControlConnection | undefined
  const opened = Effect.runPromise(Effect.exit(check)).then((checked) =>
    checked._tag === "Failure" || socketMissing(options.socketPath) ? undefined : openControl({
      ...options,
      notice: (line) => {
        const changed = line === "%sessions-changed" || line.startsWith("%window-add ") ||
          line.startsWith("%unlinked-window-add ")
        if (changed && connection !== undefined) checkSessions(link, options.session, connection)
      },
      // A connection that went is opened again on a later invocation, not at once: when the server
      // is ending, or has only hidden sessions left, a new one would only go again.
      closed: () => {
        // IDs are the server's: a server started after this one numbers its own objects from 0 again.
        link.hiddenIds = new Set()
        if (link.state.kind === "open" && link.state.connection === connection) {
          link.state = { kind: "closed", retryAt: Date.now() + retryDelayMs }
        }
      }
    }).then(async (made) => {
      connection = made
      // The hidden sessions are known before the first command goes: none can name one.
      await checkSessions(link, options.session, made)
      return made
    }, () => undefined)
  ).then((made) => {
    // Stopping meanwhile: `shutdown`, which awaits this opening, ends it.
    if (link.state.kind === "shut") return made
    link.state = made === undefined || !made.isOpen()
      ? { kind: "closed", retryAt: Date.now() + retryDelayMs }
      : { kind: "open", connection: made }
    return made
  })
  link.state = { kind: "opening", opened }
  return opened
}

/** The connection to use now: the open one, the one opening, a new one once the retry pause is over, or none. */
const currentConnection = (
  link: Link,
  opener: Opener
): Promise<ControlConnection | undefined> | ControlConnection | undefined => {
  const state = link.state
  switch (state.kind) {
    case "open":
      return state.connection.isOpen() ? state.connection : undefined
    case "opening":
      return state.opened
    case "closed":
      return Date.now() >= state.retryAt ? openConnection(link, opener) : undefined
    case "shut":
      return undefined
  }
}

/**
 * The answer to one request over `connection`, or why it has none: an answer that does not come
 * within `timeoutMs` closes the connection.
 */
const answerOver = (
  connection: ControlConnection,
  sent: ReadonlyArray<ReadonlyArray<string>>,
  command: string,
  timeoutMs: number,
  limitBytes: number
): Effect.Effect<string, TmuxError | ControlLost> =>
  Effect.callback<string, TmuxError | ControlLost>((resume) => {
    let settled = false
    const settle = (effect: Effect.Effect<string, TmuxError | ControlLost>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resume(effect)
    }
    // As for a spawned client: the verdict waits for this turn's I/O, so an answer that came is not lost.
    const timer = setTimeout(() =>
      setImmediate(() => {
        if (settled) return
        connection.close(`a command did not answer within ${timeoutMs} ms`)
        settle(Effect.fail(new TmuxTimedOut({ command, timeoutMs })))
      }), timeoutMs)
    connection.send(sent, limitBytes).then(
      (answer) =>
        settle(
          answer.tooLarge
            ? Effect.fail(new TmuxOutputTooLarge({ command, limitBytes }))
            : answer.error !== undefined
            ? Effect.fail(new TmuxCommandFailed({ command, exitCode: 1, stderr: answer.error }))
            : Effect.succeed(answer.stdout)
        ),
      (error: unknown) => settle(Effect.fail(error instanceof ControlLost ? error : new ControlLost(String(error))))
    )
    return Effect.sync(() => clearTimeout(timer))
  })

/** One invocation over `connection`; a lost read is asked again through `spawned`, a lost change is reported. */
const over = (
  connection: ControlConnection,
  commands: ReadonlyArray<ReadonlyArray<string>>,
  sent: ReadonlyArray<ReadonlyArray<string>>,
  options: RunnerOptions,
  spawned: Spawned
): Effect.Effect<string, TmuxError> => {
  const command = commandLabel(commands)
  const timeoutMs = options.timeoutMs ?? defaultTimeoutMs
  const limitBytes = options.maxOutputBytes ?? defaultMaxOutputBytes
  const answered = answerOver(connection, sent, command, timeoutMs, limitBytes)
  return Effect.catch(answered, (error) => {
    const lost = error instanceof ControlLost || error._tag === "TmuxTimedOut"
    if (!lost) return Effect.fail(error)
    // Never written, or only reads: the spawned client asks once more; a change that may have run is not sent again.
    if ((error instanceof ControlLost && !error.sent) || onlyReads(commands)) return spawned(commands, options)
    return Effect.fail(
      error instanceof ControlLost ? new TmuxAnswerLost({ command, reason: error.why }) : error
    )
  })
}

/**
 * A list that waits on a channel, as two: what comes before the wait over the connection (`run`), then
 * the wait and what follows it in a spawned client of its own, so that what the list reads once
 * the wait ends is read in the same turn of the server, before another client can act (another
 * instance collecting the run). In order, as one list runs, and stopped at the first error as one
 * list is; a signal that comes before the wait starts is kept by tmux for it. The input goes with
 * the first part, which holds its `load-buffer`. Never a wait on a control client: it blocks
 * every command behind it.
 *
 * With `signalled` (a print that is not empty once the channel was signalled) and the connection
 * open, the waiting client starts only after `signalLookMs` from the first part's answer: until then
 * `look` asks the print over the connection, and once it shows the signal, the rest of the list is
 * read there instead, with no client started (a short run answers without a fork). That read comes
 * right after the look, not in the signal's turn: another instance collects a run of ours only once
 * it has been ended for 300 ms (programs/paneClaim.ts `earlierRuns`), and a read that finds it
 * collected says so. The wait is replaced by a lock and an unlock of the channel after the reads:
 * tmux kept the signal, with no waiter to wake, and these remove the channel as a wait would, never
 * waiting themselves (a run's channel is the protocol's, programs/channel.ts, and nothing locks
 * one). A look that fails, or finds the connection gone, starts the client.
 */
const split = (
  commands: ReadonlyArray<ReadonlyArray<string>>,
  wait: number,
  options: RunnerOptions,
  spawned: Spawned,
  run: ControlLink["run"],
  look: Look | undefined
): Effect.Effect<string, TmuxError> => {
  const before = commands.slice(0, wait)
  const { cwd, input, signalled, ...rest } = options
  // A start folder, input for the waiting part, or a first part the connection cannot carry: the
  // list goes as it is, in one spawned client. A list that begins with its wait has no first part.
  const carried = cwd === undefined &&
    (before.length === 0
      ? input === undefined
      : (input === undefined || before.some((command) => command[0] === "load-buffer")) &&
        controlRoute(before, options) !== undefined)
  if (carried && signalled !== undefined && look !== undefined) {
    return Effect.gen(function*() {
      const started = Date.now()
      const first = before.length === 0 ? "" : yield* run(before, options, spawned)
      const found = yield* lookForSignal(commands, wait, signalled, look)
      if (found._tag === "Read") return first + found.stdout
      // What is left of the list's time goes to the client.
      const timeoutMs = Math.max(1, (rest.timeoutMs ?? defaultTimeoutMs) - (Date.now() - started))
      // Seen signalled, then the read over the connection lost its answer: tmux may have run the
      // lock and unlock, and a wait would then wait for a signal that is gone. The read goes to the
      // client as the connection's list was, which waits for nothing.
      const left = found._tag === "Signalled" ? lockedRead(commands, wait) : commands.slice(wait)
      return first + (yield* spawned(left, { ...rest, timeoutMs }))
    })
  }
  if (!carried || before.length === 0) return spawned(commands, options)
  return Effect.gen(function*() {
    // The waiting client starts first, so its fork overlaps the first part; when that part fails,
    // it goes, as a list stops at its error.
    const waiting = yield* Effect.forkChild(spawned(commands.slice(wait), rest))
    const first = yield* Effect.onError(run(before, options, spawned), () => Fiber.interrupt(waiting))
    return first + (yield* Fiber.join(waiting))
  })
}

/** Asks over the open connection only: `undefined` when it is not open or the answer did not come. */
type Look = (commands: ReadonlyArray<ReadonlyArray<string>>) => Effect.Effect<string | undefined>

/** How long a list with `signalled` looks for its signal before it starts a client to wait. */
const signalLookMs = 40

/** The pause before each look: 1 ms for the first 16 looks (most short runs end there), then up to 8 ms. */
const lookPause = (looks: number) => Math.min(8, Math.max(1, looks - 14))

/** What follows a waiting list's wait, then its channel locked and unlocked: the kept signal removed. */
const lockedRead = (commands: ReadonlyArray<ReadonlyArray<string>>, wait: number) => {
  const channel = commands[wait]!.at(-1)!
  return [...commands.slice(wait + 1), ["wait-for", "-L", channel], ["wait-for", "-U", channel]]
}

/**
 * What the looks for `signalled` found within `signalLookMs`: the rest of the list read over the
 * connection; the signal, with that read's answer lost; or nothing (or a look failed).
 */
const lookForSignal = (
  commands: ReadonlyArray<ReadonlyArray<string>>,
  wait: number,
  signalled: ReadonlyArray<string>,
  look: Look
): Effect.Effect<{ readonly _tag: "Read"; readonly stdout: string } | { readonly _tag: "Signalled" | "None" }> =>
  Effect.gen(function*() {
    const until = Date.now() + signalLookMs
    for (let looks = 0; Date.now() < until; looks++) {
      yield* Effect.sleep(lookPause(looks))
      const seen = yield* look([signalled])
      if (seen === undefined) return { _tag: "None" } as const
      if (seen.trim() === "") continue
      // The reads first: when one fails, the list stops before the channel is touched.
      const stdout = yield* look(lockedRead(commands, wait))
      return stdout === undefined ? { _tag: "Signalled" } as const : { _tag: "Read", stdout } as const
    }
    return { _tag: "None" } as const
  })

/** Closes the connection for good, its hidden session first (see `ControlLink.shutdown`). */
const shutdownLink = async (link: Link, session: string): Promise<void> => {
  const last = link.state
  link.state = { kind: "shut" }
  // Its session goes before this process does, not a moment after its client: whoever looks
  // next finds the server as it would be without us. A connection still opening is awaited.
  const ending = (async () => {
    const connection = last.kind === "open"
      ? last.connection
      : last.kind === "opening"
      ? await last.opened
      : undefined
    if (connection === undefined) return
    await connection.send([["kill-session", "-t", `=${session}`]], 1 << 20).catch(() => undefined)
    connection.close("the server is stopping")
  })()
  await Promise.race([ending, new Promise((done) => setTimeout(done, shutdownWaitMs))])
  if (last.kind === "open") last.connection.close("the server is stopping")
}

/**
 * A link over `open` (a check of the socket's place, then the client; a failure means the
 * connection is not there), for sessions named by `isControlSession`.
 */
export const makeControlLink = (
  options: Omit<ControlOptions, "notice" | "closed">,
  check: Effect.Effect<void, TmuxError>
): ControlLink => {
  const link: Link = { state: { kind: "closed", retryAt: 0 }, checking: false, checkAgain: false, hiddenIds: new Set() }
  const opener: Opener = { options, check }

  /**
   * Waits for a connection that is opening. tmux 3.3a's server crashes when a control notification
   * (a session made, a buffer changed, a window renamed) comes while a control client is still
   * identifying itself (tmux/tmux#4980): this instance sends nothing else meanwhile. Others may.
   */
  const afterOpening = <A>(make: () => Effect.Effect<A, TmuxError>): Effect.Effect<A, TmuxError> =>
    Effect.suspend(() => {
      const state = link.state
      return state.kind === "opening"
        ? Effect.andThen(Effect.promise(() => state.opened), Effect.suspend(make))
        : make()
    })

  const look: Look = (commands) =>
    Effect.suspend(() => {
      const state = link.state
      if (state.kind !== "open" || !state.connection.isOpen()) return Effect.succeed(undefined)
      return answerOver(state.connection, commands, commandLabel(commands), defaultTimeoutMs, defaultMaxOutputBytes)
        .pipe(Effect.orElseSucceed(() => undefined))
    })

  const run = (
    commands: ReadonlyArray<ReadonlyArray<string>>,
    options: RunnerOptions,
    spawned: Spawned
  ): Effect.Effect<string, TmuxError> => afterOpening(() => routed(commands, options, spawned))

  const routed = (
    commands: ReadonlyArray<ReadonlyArray<string>>,
    options: RunnerOptions,
    spawned: Spawned
  ): Effect.Effect<string, TmuxError> => {
    const refused = hiddenTarget(link.hiddenIds, commands)
    if (refused !== undefined) return Effect.fail(refused)
    const wait = commands.findIndex(isWait)
    if (wait !== -1 && commands.length > 1 && link.state.kind !== "shut") {
      // Looks for a signal only while the connection is open: else the client's fork overlaps the typing.
      const open = link.state.kind === "open" && link.state.connection.isOpen()
      return split(commands, wait, options, spawned, run, open ? look : undefined)
    }
    const sent = controlRoute(commands, options)
    if (sent === undefined) return spawned(commands, options)
    return Effect.suspend(() => {
      const found = currentConnection(link, opener)
      if (found === undefined) return spawned(commands, options)
      if (!(found instanceof Promise)) return over(found, commands, sent, options, spawned)
      return Effect.flatMap(
        Effect.promise(() => found),
        (connection) =>
          connection === undefined ? spawned(commands, options) : over(connection, commands, sent, options, spawned)
      )
    })
  }

  return {
    run,
    runIfOpen: (commands, options, spawned) =>
      afterOpening(() => {
        const state = link.state
        const sent = controlRoute(commands, options)
        return state.kind === "open" && state.connection.isOpen() && sent !== undefined
          ? over(state.connection, commands, sent, options, spawned)
          : spawned(commands, options)
      }),
    wake: () => {
      if (link.state.kind === "closed") link.state = { kind: "closed", retryAt: 0 }
    },
    open: () => void currentConnection(link, opener),
    shutdown: () => shutdownLink(link, options.session)
  }
}
