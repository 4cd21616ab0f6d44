/**
 * `libtmux-mcp wait RUN_ID --pane %N`: waits, from any process of the user, for a run_shell_command
 * run, from what tmux holds of it (its record in pane options, domain/runRecord.ts), with no MCP
 * server running. It reads only: it types nothing, collects nothing, sends no key, takes no lease
 * and never starts tmux (every client it runs is a read, or `wait-for`, which start no server).
 *
 * One tmux client reads the run's head, waits on the run's channel and reads the head again, in
 * one list: a run that ended before is answered from the first read, and the run's trailer, which
 * signals every waiter of the channel, wakes it at the end. A wake without the end record is no
 * end: it waits again. Meanwhile the server's /proc watcher (programs/runWatch.ts) tells what the
 * signal cannot: a program holding the keyboard, the shell back at its prompt (C-c), the pane's
 * process gone. `wait-for -S` goes out only to release this command's own client once its read
 * showed the end or no record (no live call then waits on the channel); otherwise its client is
 * stopped, and tmux keeps it as a waiter that the trailer's signal releases.
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { spawn } from "node:child_process"
import type { PaneId } from "./domain/ids.ts"
import { protocolNames } from "./domain/protocolNames.ts"
import { parseEndRecord } from "./domain/runPositions.ts"
import { markOf, readRecord, recordOf } from "./domain/runRecord.ts"
import { waitExitCode, waitFailedCode, waitLine, type WaitOutcome } from "./domain/waitOutcome.ts"
import { layer as paneProcessLayer } from "./layers/PaneProcessLive.ts"
import { guardPlace } from "./platform/SocketGuard.ts"
import { buildArgv, execTmux } from "./platform/TmuxExec.ts"
import { readsForCommand } from "./programs/runAwait.ts"
import { type Head, headFormat, kernelProbe, lookAtBottom, parseHead, screenOf } from "./programs/runHead.ts"
import { backgroundPace, type RunEvent, watchRun } from "./programs/runWatch.ts"
import type { ToolError } from "./services/errors.ts"
import { ServerPane } from "./services/ServerPane.ts"
import type { Run } from "./services/ShellRuns.ts"
import { SocketPin } from "./services/SocketPin.ts"
import { makeAuthorities, PaneCommand, type Runner } from "./services/Tmux.ts"
import type { WaitTarget } from "./startup/Startup.ts"

/** Why a pane that no longer exists is gone. */
const closedWhy = "it was closed"

/** The only tmux commands the watcher's reads may run. */
const reads = new Set(["display-message", "capture-pane", "list-panes", "list-windows", "list-sessions"])

/** The most a waiting client may print: two heads (a record is a few KiB). */
const waiterOutputLimit = 1024 * 1024

/** The watcher's pace: the waiting client sees the end (programs/runWatch.ts `backgroundPace`). */
const pace = backgroundPace

/** The failure of the command itself, not an outcome of the run. */
class WaitFailed extends Error {}

/** How a waiting client ended. */
interface WaiterEnd {
  readonly code: number | null
  /** The second head, printed after the wake; `undefined` when the client ended before it. */
  readonly second: string | undefined
  /** tmux's error for the list (a `%error` block) or the client's standard error. */
  readonly error: string
  /** tmux told the client to exit before its list was done, unasked: the server is shutting down. */
  readonly toldToExit: boolean
}

/**
 * One control-mode tmux client (`tmux -C`) running `head; wait-for <channel>; head`, read as it
 * prints. A control client ends when its standard input does: this process holds that pipe, so the
 * client ends with it, however it ends (SIGKILL too), and `stop` is closing it. tmux 3.3a keeps the
 * stopped client's place among the channel's waiters until the channel is next signalled, as for any
 * killed `wait-for` client: the run's trailer signals it. An unattached control client leaves no
 * session attached and ends once its list is done.
 */
interface Waiter {
  /** The first head, once printed; `undefined` when the client ended first. */
  readonly first: Promise<string | undefined>
  readonly done: Promise<WaiterEnd>
  readonly alive: () => boolean
  /** tmux told the client to exit, unasked, before its list was done: its server is going. */
  readonly toldToExit: () => boolean
  readonly stop: () => void
}

const headCommand = (paneId: PaneId, runId: string) =>
  ["display-message", "-p", "-t", paneId, headFormat(runId)] as const

/** One command's output block of a control client: its lines, and whether it ended in `%error`. */
interface Block {
  readonly lines: Array<string>
  failed: boolean
}

/**
 * A control client's output read as it prints: each command's %begin...%end (or %error) block, in
 * order, with `firstDone` called once the first block ends, and whether tmux told the client to exit.
 */
const controlOutput = (firstDone: () => void) => {
  const blocks: Array<Block> = []
  let open: Block | undefined
  let pending = ""
  let toldToExit = false
  const push = (chunk: string) => {
    pending += chunk
    const lines = pending.split("\n")
    pending = lines.pop() ?? ""
    for (const line of lines) {
      if (open !== undefined) {
        if (/^%(end|error) /u.test(line)) {
          open.failed = line.startsWith("%error")
          blocks.push(open)
          open = undefined
          if (blocks.length === 1) firstDone()
        } else {
          open.lines.push(line)
        }
      } else if (line.startsWith("%begin ")) {
        open = { lines: [], failed: false }
      } else if (line.startsWith("%exit")) {
        toldToExit = true
      }
      // Other lines outside a block are notifications (a paste buffer changed): none is the run's.
    }
  }
  return { blocks: blocks as ReadonlyArray<Block>, toldToExit: () => toldToExit, push }
}

const startWaiter = (target: WaitTarget): Waiter => {
  const { paneId, runId, tmuxBin } = target.request
  const head = headCommand(paneId, runId)
  const child = spawn(
    tmuxBin,
    buildArgv([...target.flags, "-C"], [head, ["wait-for", protocolNames(runId).channel], head]) as Array<string>,
    { env: target.environment, stdio: ["pipe", "pipe", "pipe"] }
  )
  let printed = 0
  let stderr = ""
  let exited = false
  let stopped = false
  let showFirst: (line: string | undefined) => void = () => undefined
  const first = new Promise<string | undefined>((resolve) => {
    showFirst = resolve
  })
  // Output of each command's %begin...%end (or %error) block, in order: the head, the wait, the head.
  const output = controlOutput(() => showFirst(headOf(0)))
  const blocks = output.blocks
  const shutdown = () => output.toldToExit() && !stopped && blocks.length < 3
  const headOf = (index: number) => {
    const block = blocks[index]
    return block === undefined || block.failed ? undefined : block.lines[0]
  }
  const done = new Promise<WaiterEnd>((resolve) => {
    const end = (code: number | null) => {
      if (exited) return
      exited = true
      showFirst(undefined)
      const failed = blocks.find((block) => block.failed)
      resolve({
        code,
        second: headOf(2),
        error: failed === undefined ? stderr : failed.lines.join("\n"),
        toldToExit: shutdown()
      })
    }
    child.on("close", end)
    child.on("error", (error) => {
      stderr += error.message
      end(null)
    })
  })
  child.stdin.on("error", () => undefined)
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    printed += chunk.length
    if (printed > waiterOutputLimit) child.kill("SIGTERM")
    output.push(chunk)
  })
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    if (stderr.length < waiterOutputLimit) stderr += chunk
  })
  return {
    first,
    done,
    alive: () => !exited,
    toldToExit: shutdown,
    stop: () => {
      if (exited || stopped) return
      stopped = true
      child.stdin.end()
    }
  }
}

/** What a head says of the run: settled, or still running (with its record's run). */
type Reading = WaitOutcome | { readonly _tag: "Running"; readonly run: Run }

const settle = (target: WaitTarget, head: Head): Effect.Effect<Reading, WaitFailed> => {
  const { paneId, runId } = target.request
  if (head.panePid === 0) return Effect.succeed({ _tag: "PaneGone", runId, paneId, why: closedWhy })
  const read = readRecord(head.runRecord)
  if (read._tag === "Undecodable") {
    return Effect.fail(new WaitFailed(`the record of run ${runId} on pane ${paneId} cannot be read: ${read.reason}`))
  }
  if (read._tag === "Absent") {
    const mark = markOf(runId, head.collected)
    return Effect.succeed(
      mark !== undefined
        ? { _tag: "Collected", runId, status: mark.status, ended: mark.ended }
        : { _tag: "Unknown", runId, paneId }
    )
  }
  // One copied or forged onto another pane is not this run's record.
  const record = recordOf(head.runRecord, paneId, runId)
  if (record === undefined) return Effect.succeed({ _tag: "Unknown", runId, paneId })
  const end = parseEndRecord(head.endRecord)
  if (end !== undefined) return Effect.succeed({ _tag: "Ended", runId, status: end.status })
  if (head.panePid !== record.run.panePid) {
    return Effect.succeed({ _tag: "PaneGone", runId, paneId, why: "it was respawned since the run was typed" })
  }
  if (head.dead) {
    return Effect.succeed(
      record.run.inShell === true
        ? { _tag: "EndedUnreported", runId, how: "its command ended the shell (resume reads the shell's status)" }
        : { _tag: "PaneGone", runId, paneId, why: "its process exited" }
    )
  }
  return Effect.succeed({ _tag: "Running", run: record.run })
}

/** Whether a read settles the run by its end or by no record: only then is the channel signalled. */
const signals = (reading: Reading): boolean =>
  reading._tag === "Ended" || reading._tag === "Unknown" || reading._tag === "Collected"

/** The reads' runner: the socket's place checked before each client, and nothing but reads. */
const readRunner = (target: WaitTarget): Runner => (commands, options) => {
  const refused = commands.find((command) => !reads.has(command[0] ?? ""))
  if (refused !== undefined) return Effect.die(new WaitFailed(`wait runs only reads; it refused ${refused[0]}`))
  return Effect.andThen(
    Effect.orDie(guardPlace(target.place, "connect")),
    execTmux(target.request.tmuxBin, buildArgv(target.flags, commands), target.socket, {
      ...options,
      env: target.environment
    })
  )
}

/** The services the watcher's programs read through: reads only, on the checked socket. */
const servicesOf = (target: WaitTarget) =>
  makeAuthorities({
    run: readRunner(target),
    spawn: readRunner(target),
    create: () => Effect.die(new WaitFailed("wait never starts a tmux server"))
  }).pipe(
    Context.add(SocketPin, {
      selector: target.request.socket,
      flags: target.flags,
      resolvedPath: target.resolvedPath,
      place: target.place,
      serverStateAtStartup: "existing",
      provenanceAtStartup: "unknown",
      provenanceRecord: undefined,
      hiddenAtStartup: [],
      lease: { state: "unavailable", reason: "wait takes no lease" },
      newServerConfig: { flags: [], fd: undefined, label: "tmux-default" },
      environment: target.environment
    }),
    Context.add(ServerPane, { panes: Effect.succeed([]), oneAtATime: (effect) => effect })
  )

const readHead = (target: WaitTarget) =>
  Effect.flatMap(PaneCommand, (tmux) => tmux.run([headCommand(target.request.paneId, target.request.runId)])).pipe(
    Effect.map((stdout) => parseHead(stdout.split("\n")[0] ?? ""))
  )

/** What a failed read says: the server or the pane gone, else the failure itself. */
const goneOr = (target: WaitTarget, error: ToolError | WaitFailed): Effect.Effect<WaitOutcome, WaitFailed> => {
  const { paneId, runId } = target.request
  if (error instanceof WaitFailed) return Effect.fail(error)
  if (error._tag === "ServerNotRunning" || (error._tag === "PaneNotFound" && !error.serverRunning)) {
    return Effect.succeed({ _tag: "ServerGone", runId, socket: target.socket })
  }
  if (error._tag === "PaneNotFound") return Effect.succeed({ _tag: "PaneGone", runId, paneId, why: closedWhy })
  if (error._tag === "TmuxCommandFailed" && /can't find (pane|window|session)/u.test(error.stderr)) {
    return Effect.succeed({ _tag: "PaneGone", runId, paneId, why: closedWhy })
  }
  return Effect.fail(new WaitFailed(error.message))
}

/** How long a closed pane is checked against its server going away: kill-server ends the sessions first. */
const shutdownWindowMs = 1000

/** Whether a tmux server still answers on the socket (a refusal is an answer: only no server is `false`). */
const serverAnswers = (paneId: PaneId) =>
  Effect.flatMap(PaneCommand, (tmux) => tmux.run([["display-message", "-p", "-t", paneId, "#{pid}"]])).pipe(
    Effect.as(true),
    Effect.catch((error) => Effect.succeed(error._tag !== "ServerNotRunning"))
  )

/**
 * A pane found closed is told apart from its server going away: the server ends its sessions (and
 * wakes every waiter) before it exits, so a pane missing while the server still answers is watched
 * for `shutdownWindowMs`: the waiting client told to exit, or no server left, is the server's end.
 */
const paneOrServerGone = (target: WaitTarget, waiter: Waiter | undefined, outcome: WaitOutcome) =>
  Effect.gen(function*() {
    if (outcome._tag !== "PaneGone" || outcome.why !== closedWhy) return outcome
    const gone: WaitOutcome = { _tag: "ServerGone", runId: target.request.runId, socket: target.socket }
    const until = (yield* Clock.currentTimeMillis) + shutdownWindowMs
    while (true) {
      if (waiter?.toldToExit() === true) return gone
      yield* Effect.orDie(guardPlace(target.place, "connect"))
      if (!(yield* serverAnswers(target.request.paneId))) return gone
      if ((yield* Clock.currentTimeMillis) >= until) return outcome
      yield* Effect.sleep(50)
    }
  })

/** Reads the run's head afresh and settles it; `still` is what a run still running means here. */
const lookAgain = <R>(target: WaitTarget, still: (run: Run) => Effect.Effect<Reading, WaitFailed, R>) =>
  readHead(target).pipe(
    Effect.flatMap((head) => settle(target, head)),
    Effect.catch((error) => goneOr(target, error)),
    Effect.flatMap((reading): Effect.Effect<Reading, WaitFailed, R> =>
      reading._tag === "Running" ? still(reading.run) : Effect.succeed(reading)
    )
  )

/** Releases this command's own waiting client: a signal when `signal`, else a stop. */
const release = (target: WaitTarget, waiter: Waiter, signal: boolean) =>
  Effect.gen(function*() {
    if (!waiter.alive()) return
    if (signal) {
      yield* Effect.orDie(guardPlace(target.place, "connect"))
      yield* execTmux(
        target.request.tmuxBin,
        buildArgv(target.flags, [["wait-for", "-S", protocolNames(target.request.runId).channel]]),
        target.socket,
        { env: target.environment }
      ).pipe(Effect.ignore)
      yield* Effect.timeoutOption(Effect.promise(() => waiter.done), 1000)
    }
    waiter.stop()
  })

/**
 * The watcher's look at the pane: a pane respawned since the run was typed is told as the run's
 * process gone (its pid is another), so the look that follows settles it; the kernel sees only that
 * the run's process is gone.
 */
const lookOf = (run: Run) => (rows: boolean) =>
  Effect.map(
    screenOf(run)(rows),
    (seen) =>
      seen.panePid !== undefined && seen.panePid !== 0 && seen.panePid !== run.panePid ? { ...seen, dead: true } : seen
  )

/** What a watcher's event means for the run. */
const fromEvent = (target: WaitTarget, run: Run, event: RunEvent) => {
  const { runId } = target.request
  switch (event._tag) {
    case "Blocked":
      return Effect.succeed<WaitOutcome>({ _tag: "Blocked", runId, by: event.by, kind: event.kind })
    case "Replaced":
      return Effect.succeed<WaitOutcome>({
        _tag: "EndedUnreported",
        runId,
        how: `its command replaced the shell with ${event.by}`
      })
    case "Recorded":
    case "Exited":
      return lookAgain(
        target,
        () => Effect.succeed({ _tag: "PaneGone", runId, paneId: target.request.paneId, why: "its process exited" })
      )
    case "Returned":
      return lookAgain(target, () =>
        lookAtBottom(run).pipe(
          Effect.map((capture): WaitOutcome =>
            // The shell itself reads for an in-shell command (its `read`): a prompt of the run's.
            readsForCommand(run, capture)
              ? { _tag: "Blocked", runId, by: run.shell, kind: "prompt" }
              : {
                _tag: "EndedUnreported",
                runId,
                how: "the shell is back at its prompt without the run's status (interrupted, as by C-c)"
              }
          ),
          Effect.catch((error) => goneOr(target, error))
        ))
  }
}

const watch = (target: WaitTarget) =>
  Effect.gen(function*() {
    const { runId, timeoutSeconds } = target.request
    const deadline = timeoutSeconds === undefined
      ? undefined
      : (yield* Clock.currentTimeMillis) + timeoutSeconds * 1000
    let waiter: Waiter | undefined
    const decided = Effect.gen(function*() {
      while (true) {
        yield* Effect.orDie(guardPlace(target.place, "connect"))
        waiter = yield* Effect.acquireRelease(Effect.sync(() => startWaiter(target)), (w) => Effect.sync(w.stop))
        const first = yield* Effect.promise(() => waiter!.first)
        if (first === undefined) {
          const done = yield* Effect.promise(() => waiter!.done)
          const failed = () => Effect.fail(new WaitFailed(`tmux failed: ${done.error.trim()}`))
          const after = yield* lookAgain(target, failed)
          if (after._tag === "Running") return yield* failed()
          return after
        }
        const reading = yield* settle(target, parseHead(first))
        if (reading._tag !== "Running") {
          yield* release(target, waiter, signals(reading))
          return reading
        }
        const run = reading.run
        const kernel = yield* kernelProbe
        const woken = Effect.map(Effect.promise(() => waiter!.done), (done) => ({ _tag: "Woken" as const, done }))
        const watched = watchRun(
          run.panePid,
          run.tty,
          kernel,
          lookOf(run),
          run.inShell === true ? run : undefined,
          pace
        )
          .pipe(
            Effect.map((event) => ({ _tag: "Watched" as const, event })),
            Effect.catch((error) =>
              Effect.map(goneOr(target, error), (outcome) => ({ _tag: "Gone" as const, outcome }))
            )
          )
        const raced = Effect.raceFirst(woken, watched)
        const now = yield* Clock.currentTimeMillis
        const result = deadline === undefined
          ? Option.some(yield* raced)
          : yield* Effect.timeoutOption(raced, Math.max(0, deadline - now))
        if (Option.isNone(result)) {
          waiter.stop()
          return { _tag: "TimedOut", runId, seconds: timeoutSeconds! } satisfies WaitOutcome
        }
        const found = result.value
        if (found._tag === "Woken") {
          // The end's signal prints the second head; a server that shuts down wakes it without one.
          const again = found.done.second !== undefined
            ? yield* settle(target, parseHead(found.done.second))
            : yield* lookAgain(target, () => Effect.succeed({ _tag: "Running", run } as const))
          // A wake without the end record is no end: wait again.
          if (again._tag !== "Running") return again
          continue
        }
        if (found._tag === "Gone") {
          waiter.stop()
          return found.outcome
        }
        const outcome = yield* fromEvent(target, run, found.event)
        yield* release(target, waiter, signals(outcome))
        if (outcome._tag !== "Running") return outcome
      }
    })
    return yield* Effect.flatMap(decided, (outcome) => paneOrServerGone(target, waiter, outcome))
  })

/** Runs `wait`: prints the outcome's line, and returns its exit code. */
export const waitForRun = (target: WaitTarget): Effect.Effect<number> =>
  Effect.scoped(watch(target)).pipe(
    Effect.provideContext(servicesOf(target)),
    Effect.provide(paneProcessLayer),
    Effect.map((outcome) => {
      process.stdout.write(`${waitLine(outcome)}\n`)
      return waitExitCode(outcome)
    }),
    Effect.catchCause((cause) =>
      Effect.sync(() => {
        const error = Cause.squash(cause)
        process.stderr.write(`libtmux-mcp: wait: ${error instanceof Error ? error.message : String(error)}\n`)
        return waitFailedCode
      })
    )
  )
