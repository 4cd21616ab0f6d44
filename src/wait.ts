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
import { decodeMark, readRecord, recordOf } from "./domain/runRecord.ts"
import { waitExitCode, waitFailedCode, waitLine, type WaitOutcome } from "./domain/waitOutcome.ts"
import { layer as paneProcessLayer } from "./layers/PaneProcessLive.ts"
import { guardPlace } from "./platform/SocketGuard.ts"
import { buildArgv, execTmux } from "./platform/TmuxExec.ts"
import { readsForCommand } from "./programs/runAwait.ts"
import { type Head, headFormat, kernelProbe, lookAtBottom, parseHead, screenOf } from "./programs/runHead.ts"
import { type RunEvent, watchRun } from "./programs/runWatch.ts"
import type { ToolError } from "./services/errors.ts"
import { ServerPane } from "./services/ServerPane.ts"
import type { Run } from "./services/ShellRuns.ts"
import { SocketPin } from "./services/SocketPin.ts"
import { makeAuthorities, PaneCommand, type Runner } from "./services/Tmux.ts"
import type { WaitTarget } from "./startup/Startup.ts"

/** The only tmux commands the watcher's reads may run. */
const reads = new Set(["display-message", "capture-pane", "list-panes", "list-windows", "list-sessions"])

/** The most a waiting client may print: two heads (a record is a few KiB). */
const waiterOutputLimit = 1024 * 1024

/**
 * The watcher's pace: the waiting client sees the end, and a pane's process gone shows in /proc,
 * so tmux is looked at only when /proc says so (a program at the terminal, the process gone). The
 * polls tell only what stops a run without its end (C-c, an exit, a program at the keyboard), which a
 * host's background runner hears a second later: a poll a second keeps a minute's wait under 1% of a core.
 */
const pace = { watchPoll: 1_000, screenEvery: Number.POSITIVE_INFINITY }

/** The failure of the command itself, not an outcome of the run. */
class WaitFailed extends Error {}

/** One tmux client running `head; wait-for <channel>; head`, read as it prints. */
interface Waiter {
  /** The first head, once printed; `undefined` when the client ended first. */
  readonly first: Promise<string | undefined>
  readonly done: Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }>
  readonly alive: () => boolean
  readonly stop: () => void
}

const headCommand = (paneId: PaneId, runId: string) =>
  ["display-message", "-p", "-t", paneId, headFormat(runId)] as const

const startWaiter = (target: WaitTarget): Waiter => {
  const { paneId, runId, tmuxBin } = target.request
  const head = headCommand(paneId, runId)
  const child = spawn(
    tmuxBin,
    buildArgv(target.flags, [head, ["wait-for", protocolNames(runId).channel], head]) as Array<string>,
    { env: target.environment, stdio: ["ignore", "pipe", "pipe"] }
  )
  let stdout = ""
  let stderr = ""
  let exited = false
  let showFirst: (line: string | undefined) => void = () => undefined
  const first = new Promise<string | undefined>((resolve) => {
    showFirst = resolve
  })
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const end = (code: number | null) => {
      if (exited) return
      exited = true
      showFirst(undefined)
      resolve({ code, stdout, stderr })
    }
    child.on("close", end)
    child.on("error", (error) => {
      stderr += error.message
      end(null)
    })
  })
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk
    if (stdout.length > waiterOutputLimit) child.kill("SIGTERM")
    const newline = stdout.indexOf("\n")
    if (newline !== -1) showFirst(stdout.slice(0, newline))
  })
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    if (stderr.length < waiterOutputLimit) stderr += chunk
  })
  return {
    first,
    done,
    alive: () => !exited,
    stop: () => {
      if (!exited) child.kill("SIGTERM")
    }
  }
}

/** What a head says of the run: settled, or still running (with its record's run). */
type Reading = WaitOutcome | { readonly _tag: "Running"; readonly run: Run }

const settle = (target: WaitTarget, head: Head): Effect.Effect<Reading, WaitFailed> => {
  const { paneId, runId } = target.request
  if (head.panePid === 0) return Effect.succeed({ _tag: "PaneGone", runId, paneId, why: "it was closed" })
  const read = readRecord(head.runRecord)
  if (read._tag === "Undecodable") {
    return Effect.fail(new WaitFailed(`the record of run ${runId} on pane ${paneId} cannot be read: ${read.reason}`))
  }
  if (read._tag === "Absent") {
    const mark = decodeMark(head.collected)
    return Effect.succeed(
      mark?.runId === runId
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
  if (error._tag === "PaneNotFound") return Effect.succeed({ _tag: "PaneGone", runId, paneId, why: "it was closed" })
  if (error._tag === "TmuxCommandFailed" && /can't find (pane|window|session)/u.test(error.stderr)) {
    return Effect.succeed({ _tag: "PaneGone", runId, paneId, why: "it was closed" })
  }
  return Effect.fail(new WaitFailed(error.message))
}

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
    while (true) {
      yield* Effect.orDie(guardPlace(target.place, "connect"))
      const waiter = yield* Effect.acquireRelease(Effect.sync(() => startWaiter(target)), (w) => Effect.sync(w.stop))
      const first = yield* Effect.promise(() => waiter.first)
      if (first === undefined) {
        const done = yield* Effect.promise(() => waiter.done)
        const after = yield* lookAgain(target, () => Effect.fail(new WaitFailed(`tmux failed: ${done.stderr.trim()}`)))
        if (after._tag === "Running") return yield* Effect.fail(new WaitFailed(`tmux failed: ${done.stderr.trim()}`))
        return after
      }
      const reading = yield* settle(target, parseHead(first))
      if (reading._tag !== "Running") {
        yield* release(target, waiter, signals(reading))
        return reading
      }
      const run = reading.run
      const kernel = yield* kernelProbe
      const woken = Effect.map(Effect.promise(() => waiter.done), (done) => ({ _tag: "Woken" as const, done }))
      const watched = watchRun(
        run.panePid,
        run.tty,
        kernel,
        screenOf(run),
        run.inShell === true ? run : undefined,
        pace
      )
        .pipe(
          Effect.map((event) => ({ _tag: "Watched" as const, event })),
          Effect.catch((error) => Effect.map(goneOr(target, error), (outcome) => ({ _tag: "Gone" as const, outcome })))
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
        const second = found.done.stdout.split("\n")[1] ?? ""
        const again = found.done.code === 0 && second !== ""
          ? yield* settle(target, parseHead(second))
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
