/**
 * Waiting for a typed run and saying how it ended: the run's channel raced against its watcher
 * (runWatch.ts), then the output read back (runReadBack.ts) and the run collected, or held for
 * `resume` when it timed out or something holds the keyboard.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { tailBound } from "../domain/bounds.ts"
import { type BlockKind, type ScreenReason, screenReasonOf } from "../domain/keyboard.ts"
import { paneRunOptions, protocolNames } from "../domain/protocolNames.ts"
import { relativeRow } from "../domain/rows.ts"
import { commandsOf, type RunState, stateOnPane, step } from "../domain/runMachine.ts"
import { parseStartMark, parseTypedRecord } from "../domain/runPositions.ts"
import { readRecord, type RecordRead } from "../domain/runRecord.ts"
import { screenOfAnswer } from "../domain/screenSeen.ts"
import { showsPrompt } from "../domain/shellProtocol.ts"
import {
  PaneGone,
  PaneNotReady,
  type ProgramError,
  RunIncomplete,
  RunUnreported,
  RunWaitFailed,
  type TmuxAnswerLost,
  type TmuxCommandFailed,
  type TmuxOutputTooLarge,
  type TmuxTimedOut,
  type ToolError
} from "../services/errors.ts"
import { PaneProcess } from "../services/PaneProcess.ts"
import { type Run, ShellRuns } from "../services/ShellRuns.ts"
import { TaskCall } from "../services/TaskCall.ts"
import { PaneCommand } from "../services/Tmux.ts"
import { cancelOpenInput, keepOpenCommands } from "./openInput.ts"
import { orPaneNotFound, readPane } from "./pane.ts"
import { isClaimTaken } from "./paneClaim.ts"
import {
  type Capture,
  endPrint,
  type Head,
  headOfRun,
  kernelProbe,
  lookAtBottom,
  parseCapture,
  readCommands,
  screenOf,
  scrollMargin
} from "./runHead.ts"
import {
  collectedElsewhere,
  collectFinished,
  collectRun,
  type OutputLimits,
  outputOf,
  outputSoFar,
  type RunOutput,
  undecodableRecord
} from "./runReadBack.ts"
import { backgroundPace, type RunEvent, timings, watchRun } from "./runWatch.ts"
import { resolvePane } from "./targets.ts"

/** How a run's wait ended. @category models */
export type RunOutcome =
  | { readonly _tag: "Finished"; readonly output: RunOutput }
  | { readonly _tag: "TimedOut"; readonly output: RunOutput }
  | {
    readonly _tag: "Blocked"
    readonly by: string
    readonly kind: BlockKind
    /** The file name of the program `by` runs, where it could be read (for the quit advice). */
    readonly executable?: string
    readonly output: RunOutput
  }
  /** The command ended the shell itself (an in-shell `exit`): its status; the pane is left dead. */
  | { readonly _tag: "ShellExited"; readonly status: number | null; readonly output: RunOutput }
  /** The command replaced the shell (an in-shell `exec`) with `program`: its status is unknown; the pane is free. */
  | { readonly _tag: "ShellReplaced"; readonly program: string; readonly output: RunOutput }
  /** The call's C-c ended the run, and with it the rest of its typed line: no status; what it printed. */
  | { readonly _tag: "Interrupted"; readonly output: RunOutput }

/** A run's last answer: its output with what this run's watchers saw that holds for it (domain/screenSeen.ts). */
export const withSeen = (run: Run, output: RunOutput): RunOutput => ({
  ...output,
  screen: screenOfAnswer(run.screenSeen ?? [], output.screen).screen
})

/**
 * An answer after which the run is held: its output with the screen reasons that hold for it
 * (`seen`: what this answer's watcher saw hold the keyboard), and the run carrying what holds for
 * the next answer.
 */
const heldAnswer = (run: Run, output: RunOutput, seen?: ScreenReason) => {
  const shown = screenOfAnswer(run.screenSeen ?? [], output.screen, seen)
  return { run: { ...run, screenSeen: shown.carried }, output: { ...output, screen: shown.screen } }
}

/**
 * Waits for a typed run: the `waiter` (an invocation blocked on the run's channel, then reading
 * back) raced against the watcher, until `deadline`. A finished run is collected; a timed-out or
 * blocked one is held for `resume`. `untyped`, for a new run, says at the timeout whether its
 * typing list never reached the paste: then nothing was typed, and there is no run.
 */
export const awaitRun = <R>(
  run: Run,
  waiter: Effect.Effect<string, ToolError, R>,
  from: number,
  deadline: number,
  fresh: boolean,
  limits: OutputLimits,
  untyped?: Effect.Effect<boolean, never, R>,
  interrupted = false
) =>
  Effect.gen(function*() {
    const runs = yield* ShellRuns
    const kernel = yield* kernelProbe
    const now = yield* Clock.currentTimeMillis
    const signalled = Effect.map(waiter, (stdout) => ({ _tag: "Signalled" as const, stdout }))
    // A task's watcher waits in the background: its run's watcher looks at the pane less often.
    const pace = (yield* TaskCall).background === true ? backgroundPace : timings
    const raced = yield* signalled.pipe(
      Effect.raceFirst(
        watchRun(run.panePid, run.tty, kernel, screenOf(run), run.inShell === true ? run : undefined, pace)
      ),
      Effect.timeoutOption(Math.max(0, deadline - now))
    )
    if (Option.isNone(raced)) {
      // The timeout came while the typing client was still starting: tmux never ran its list.
      if (untyped !== undefined && (yield* untyped)) {
        return yield* new PaneNotReady({
          pane: run.paneId,
          reason: "timed-out",
          detail: "the call's timeout ran out before the command was typed (its tmux client was still " +
            "starting); nothing was typed",
          remedy: "call again (it is safe), with a longer timeout"
        })
      }
      const output = yield* outputSoFar(run, limits)
      // It ended as the call timed out: the look that saw its end holds its whole answer.
      if (output.status !== undefined) return yield* settleRun(run, output, output.status, fresh)
      const answer = heldAnswer(run, output)
      yield* runs.hold(answer.run)
      if (output.front !== undefined) (yield* TaskCall).front?.(output.front)
      return { _tag: "TimedOut", output: answer.output } satisfies RunOutcome
    }
    const event: RunEvent | { readonly _tag: "Signalled"; readonly stdout: string } = raced.value
    switch (event._tag) {
      case "Signalled":
        return yield* signalledRun(run, event.stdout, from, limits, fresh)
      case "Recorded":
        return {
          _tag: "Finished",
          output: withSeen(run, yield* collectFinished(run, limits, fresh))
        } satisfies RunOutcome
      case "Blocked": {
        const sofar = yield* outputSoFar(run, limits)
        // It ended as it was seen blocked: a finished run's answer, its screen reasons as any's.
        if (sofar.status !== undefined) return yield* settleRun(run, sofar, sofar.status, fresh)
        const answer = heldAnswer(run, sofar, screenReasonOf(event.kind))
        yield* runs.hold(answer.run)
        const output = answer.output
        return {
          _tag: "Blocked",
          by: event.by,
          kind: event.kind,
          ...(event.executable === undefined ? {} : { executable: event.executable }),
          output
        } satisfies RunOutcome
      }
      case "Exited": {
        if (run.inShell === true) return yield* shellExited(run, limits)
        yield* collectRun(run, stranded(run))
        return yield* new PaneGone({
          pane: run.paneId,
          reason: "lost its process while the command ran (the shell exited)"
        })
      }
      case "Replaced":
        return yield* shellReplaced(run, event.by, limits)
      case "Returned":
        return yield* returnedRun(run, fresh, limits, interrupted)
    }
  })

/**
 * Where a run this call waits for is once its trailer can no longer run (a C-c in the pane, its shell
 * exited or replaced): the machine's `Interrupted`, from the `Running` this call's wait holds it in.
 */
const stranded = (run: Run): RunState => step({ _tag: "Running", run }, { _tag: "Interrupted" })!.next

/** The run's channel was signalled and its waiting client read the run back: settled from that read. */
const signalledRun = (run: Run, stdout: string, from: number, limits: OutputLimits, fresh: boolean) =>
  Effect.gen(function*() {
    const runs = yield* ShellRuns
    const capture = parseCapture(stdout, run.id, from)
    const state = stateOnPane(capture.head, run)
    if (state._tag !== "Ended") {
      // The waiting client returned without the record: the tmux server died under it (that
      // read fails with the typed error), another call collected the run first, or the signal
      // came from somewhere else (the run, still recorded, is held).
      yield* readPane(run.paneId, { pane_id: "string" })
      if (state._tag === "Free" || state._tag === "Collected") {
        yield* runs.collect(run)
        return yield* collectedElsewhere(run, capture.head.collected)
      }
      yield* runs.hold(run)
      return yield* new RunWaitFailed({
        pane: run.paneId,
        runId: run.id,
        cause: "its channel was signalled without its status report"
      })
    }
    return yield* settleRun(run, yield* outputOf(run, capture.head, limits, capture), state.status, fresh)
  })

/**
 * The shell is back at its prompt without the run's status report. An in-shell run's own `read` is a
 * prompt of the run's: held. Otherwise the run was cut short (C-c, an open input, a command that never
 * started): an open input C-c cannot cancel keeps the pane (`RunIncomplete`); else the run is collected
 * as unreported and answered with what it printed.
 */
const returnedRun = (run: Run, fresh: boolean, limits: OutputLimits, interrupted: boolean) =>
  Effect.gen(function*() {
    const runs = yield* ShellRuns
    const tmux = yield* PaneCommand
    const capture = yield* lookAtBottom(run)
    if (readsForCommand(run, capture)) {
      // The shell itself reads for the in-shell command (its `read`): a prompt of the run's. Held
      // with what the answer carries, or as it was when the read fails.
      const read = yield* outputSoFar(run, limits).pipe(Effect.tapError(() => runs.hold(run)))
      const answer = heldAnswer(run, read)
      yield* runs.hold(answer.run)
      const output = answer.output
      return { _tag: "Blocked", by: run.shell, kind: "prompt", output } satisfies RunOutcome
    }
    const read = yield* outputOf(run, capture.head, limits, capture)
    // Without a status report the output ends at the cursor: on the shell's prompt drawn again.
    const cursorRow = capture.rows[capture.head.history + capture.head.cursorY - capture.firstRow] ?? ""
    const printed = showsPrompt(run.prompt, cursorRow, capture.head.cursorX) ? read.lines.slice(0, -1) : read.lines
    const shown = printed.map((row) => row.trimEnd()).filter((row) => row !== "").slice(-8).join("\n").slice(-1000)
    // Only a start mark that never ran proves that nothing of the command ran.
    const neverStarted = run.markStart && parseStartMark(capture.head.mark) === undefined
    // Cancel any open input so the next command starts at a clean prompt. A resume of a run whose
    // open input C-c could not cancel (another instance's) leaves the pane held, as that run's answer did.
    const stillOpen = fresh
      ? (yield* cancelOpenInput(run, capture.head)) === "stuck"
      : (yield* readPane(run.paneId, { [paneRunOptions.openInput]: "string" }))[paneRunOptions.openInput] === run.id
    if (stillOpen) {
      // C-c did not cancel it: the run keeps the pane, so nothing else is typed into that input.
      yield* tmux.run(keepOpenCommands(run)).pipe(Effect.ignore)
      yield* runs.collect(run)
      return yield* new RunIncomplete({ pane: run.paneId, shown, stillOpen: true })
    }
    yield* collectRun(run, stranded(run))
    // Back at the prompt after this call's C-c: the run ended as asked, with what it printed.
    if (interrupted) {
      return { _tag: "Interrupted", output: withSeen(run, { ...read, lines: printed }) } satisfies RunOutcome
    }
    if (!fresh) {
      const bounded = tailBound(printed, limits.maxLines, limits.maxBytes)
      return yield* new RunUnreported({
        pane: run.paneId,
        runId: run.id,
        output: {
          text: bounded.lines.join("\n"),
          truncatedLines: bounded.truncatedLines + read.droppedLines,
          continued: read.continued
        }
      })
    }
    return yield* neverStarted
      ? new RunIncomplete({ pane: run.paneId, shown })
      : new RunUnreported({ pane: run.paneId, runId: run.id, shown })
  })

/**
 * A run whose end a read found (its end record's `status`), its output in hand: collected only now; a
 * resume answers only when it collected it (one result per run), a new run's answer is its own.
 */
const settleRun = (run: Run, output: RunOutput, status: number, fresh: boolean) =>
  Effect.gen(function*() {
    if (!(yield* collectRun(run, { _tag: "Ended", run, status })) && !fresh) {
      return yield* collectedElsewhere(run, (yield* headOfRun(run.paneId, run.id)).collected)
    }
    return { _tag: "Finished", output: withSeen(run, output) } satisfies RunOutcome
  })

/**
 * Whether a shell seen reading its terminal without the run's status report is reading for the
 * command: an in-shell run whose start mark ran (so all of it parsed and it began), with the
 * shell's prompt not drawn again at the cursor (a `read -p` shows its own prompt there).
 */
export const readsForCommand = (run: Run, capture: Capture): boolean => {
  if (run.inShell !== true || parseStartMark(capture.head.mark) === undefined) return false
  const row = capture.rows[capture.head.history + capture.head.cursorY - capture.firstRow] ?? ""
  return !showsPrompt(run.prompt, row, capture.head.cursorX)
}

/**
 * An in-shell run whose command ended the shell (`exit`): the pane was kept, dead, for the run (see
 * `keepPaneCommands`), so the shell's status is read. The pane stays dead with its last output
 * (closing it is teardown's, not this tool's); its own `remain-on-exit` is restored.
 */
const shellExited = (run: Run, limits: OutputLimits) =>
  Effect.gen(function*() {
    const tmux = yield* PaneCommand
    const processes = yield* PaneProcess
    // tmux sees the terminal close before it reaps the shell, and 3.3a may not reap it for seconds:
    // the shell's zombie then tells its status (see PaneProcess.exitOf).
    let ended: { readonly status: number | null; readonly signal: number | null } | undefined
    for (let look = 0; look < exitStatusLooks && ended === undefined; look++) {
      if (look > 0) yield* Effect.sleep(50)
      const [code = "", signal = ""] = (yield* tmux.run([
        ["display-message", "-p", "-t", run.paneId, "#{pane_dead_status}|#{pane_dead_signal}"]
      ]).pipe(orPaneNotFound(run.paneId))).trim().split("|")
      ended = /^[0-9]{1,3}$/u.test(code)
        ? { status: Number(code), signal: null }
        : /^[0-9]{1,3}$/u.test(signal)
        ? { status: null, signal: Number(signal) }
        : yield* processes.exitOf(run.panePid, run.shell)
    }
    const capture = yield* lookAtBottom(run)
    const output = yield* outputOf(run, capture.head, limits, capture)
    yield* collectRun(run, stranded(run), { status: ended?.status ?? null, ended: "shell-exited" })
    // Null when a signal ended the shell (or its status never came).
    return { _tag: "ShellExited", status: ended?.status ?? null, output } satisfies RunOutcome
  })

/**
 * An in-shell run whose command replaced the shell (`exec`): its trailer died with the shell, so
 * its status is unknown. The run is closed and the pane released (its own `remain-on-exit` back);
 * what the old shell left for later runs (its `$-`) is dropped.
 */
const shellReplaced = (run: Run, program: string, limits: OutputLimits) =>
  Effect.gen(function*() {
    const capture = yield* lookAtBottom(run)
    const output = yield* outputOf(run, capture.head, limits, capture)
    // Its status is unknown: collected as a run that never reported.
    yield* collectRun(run, stranded(run))
    const closed = { _tag: "Collected", runId: run.id, status: null, ended: "unreported" } as const
    yield* (yield* PaneCommand).run(commandsOf(closed, { _tag: "ShellForgotten", paneId: run.paneId })).pipe(
      Effect.ignore
    )
    return { _tag: "ShellReplaced", program, output: withSeen(run, output) } satisfies RunOutcome
  })

/** A waiting invocation's own failure: its tmux client timed out, printed too much, or failed. */
export type LostWait = TmuxCommandFailed | TmuxTimedOut | TmuxOutputTooLarge | TmuxAnswerLost

/** A failure of the waiting invocation's tmux client itself, not an answer about the pane or the run. */
export const lostWait = (error: ProgramError): error is LostWait =>
  (error._tag === "TmuxCommandFailed" && !isClaimTaken(error)) || error._tag === "TmuxTimedOut" ||
  error._tag === "TmuxOutputTooLarge" || error._tag === "TmuxAnswerLost"

/**
 * The invocation that waited for a typed run failed on its own account: a failure of the wait, which
 * says nothing of the run. Where the run is now decides the answer: ended, it is collected now and
 * answered with its status and output; collected by another call meanwhile, the answer says where
 * its output went (`RunCollected`: it cannot be resumed); still running (or not known), it is held
 * for `resume`. A first call and a resume answer alike.
 */
export const afterLostWaiter = Effect.fn("runAwait.afterLostWaiter")(
  function*(run: Run, error: LostWait, limits: OutputLimits, fresh: boolean) {
    const head = yield* Effect.option(headOfRun(run.paneId, run.id))
    const state = head._tag === "Some" ? stateOnPane(head.value, run)._tag : "Unknown"
    if (head._tag === "Some" && (state === "Free" || state === "Collected")) {
      yield* (yield* ShellRuns).collect(run)
      return yield* collectedElsewhere(run, head.value.collected)
    }
    if (state === "Ended") {
      const output = yield* collectFinished(run, limits, fresh)
      return { _tag: "Finished", output: withSeen(run, output) } satisfies RunOutcome
    }
    yield* (yield* ShellRuns).hold(run)
    return yield* new RunWaitFailed({ pane: run.paneId, runId: run.id, cause: error.message })
  }
)

/** Looks, 50 ms apart, for the status of a shell whose pane is dead. */
const exitStatusLooks = 20

/**
 * Waits again for a held run (`interrupted`: after this call's C-c): types nothing. `seen` is the
 * run's head as the caller just read it, and its record decoded, when nothing was typed since.
 */
export const resumeRun = Effect.fn("runAwait.resumeRun")(
  function*(
    run: Run,
    deadline: number,
    limits: OutputLimits,
    interrupted = false,
    seen?: { readonly head: Head; readonly read: RecordRead }
  ) {
    const tmux = yield* PaneCommand
    // One read answers every question before the wait: the records, the claim, the pane's process.
    const head = seen?.head ?? (yield* headOfRun(run.paneId, run.id))
    // A pane that closed answers with empty fields (tmux 3.3a): say which panes exist instead.
    if (head.panePid === 0) yield* resolvePane(run.paneId)
    const state = stateOnPane(head, run)
    if (head.panePid !== run.panePid) {
      // Its trailer can never run now: collected as it is on the pane (ended, still holding the pane,
      // or released), or nobody would, and its record and templates would stay there for good.
      yield* collectRun(run, state)
      return yield* new PaneGone({
        pane: run.paneId,
        reason: `was respawned since run ${run.id} was typed; its status is lost`
      })
    }
    const read = seen?.read ?? readRecord(head.runRecord)
    if (read._tag === "Undecodable") return yield* undecodableRecord(run.id, run.paneId, read.reason)
    if (read._tag === "Absent") {
      yield* (yield* ShellRuns).collect(run)
      return yield* collectedElsewhere(run, head.collected)
    }
    // A run that ended while nobody waited: its record is there, and its signal may have gone
    // unheard, so it is answered from the record, not from a wait.
    if (state._tag === "Ended") {
      return {
        _tag: "Finished",
        output: withSeen(run, yield* collectFinished(run, limits, false))
      } satisfies RunOutcome
    }
    // Where it was typed, as recorded in the invocation that typed it (the prompt's row may not have been read).
    const from = relativeRow(
      parseTypedRecord(head.typed)?.row ?? (run.promptRow < 0 ? head.history - scrollMargin : run.promptRow),
      head.history
    )
    const now = yield* Clock.currentTimeMillis
    // As a new run's: a run that ends soon after (an answer typed just before) is seen over the connection.
    const waiter = tmux.run(
      [["wait-for", protocolNames(run.id).channel], ...readCommands(run, from)],
      { timeoutMs: Math.max(1, deadline - now) + 10_000, signalled: endPrint(run.paneId, run.id) }
    ).pipe(orPaneNotFound(run.paneId))
    return yield* awaitRun(run, waiter, from, deadline, false, limits, undefined, interrupted).pipe(
      Effect.catchIf(lostWait, (error) => afterLostWaiter(run, error, limits, false))
    )
  }
)
