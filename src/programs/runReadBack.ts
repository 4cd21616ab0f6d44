/**
 * A run's output read back: where it starts (domain/runStart.ts), where it ends, and the rows
 * between, bounded (runOutput.ts); for a finished run, the read that collects it.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { PaneId } from "../domain/ids.ts"
import type { ScreenReason } from "../domain/keyboard.ts"
import { closing, type RunState, stateOnPane, step } from "../domain/runMachine.ts"
import { parseEndRecord, parseStartMark, parseTypedRecord } from "../domain/runPositions.ts"
import {
  type CollectedMark,
  decodeRecord,
  encodeRecord,
  markOf,
  type ReadPosition,
  rowDigest,
  type RunEnding
} from "../domain/runRecord.ts"
import { candidateShifts, placeStart, trimChunk, trimsPossible, type TypedAt } from "../domain/runStart.ts"
import { thisTag } from "../platform/thisInstance.ts"
import { ArgumentProblem, RunCollected } from "../services/errors.ts"
import { LinkGate } from "../services/LinkGate.ts"
import { type Run, ShellRuns } from "../services/ShellRuns.ts"
import { PaneCommand } from "../services/Tmux.ts"
import { orPaneNotFound } from "./pane.ts"
import { isCollected } from "./paneClaim.ts"
import { type Capture, type Head, headOfRun, lookAtBottom } from "./runHead.ts"
import { type ReadOutput, readOutput, readWindows } from "./runOutput.ts"

/** Rows read above each place the typed row may be (see `startOf`). */
export const windowMargin = 20

/** What a finished look at a run found. @category models */
export interface RunOutput {
  readonly lines: ReadonlyArray<string>
  readonly status: number | undefined
  /** The output outgrew the history: its beginning is gone. */
  readonly startLost: boolean
  /** Where the output begins could not be found: `lines` is empty rather than risk older rows. */
  readonly startUnknown: boolean
  /** Lines before `lines`, and their bytes, counted but not read back. */
  readonly droppedLines: number
  readonly droppedBytes: number
  /** Counting stopped at `countUntil`: there are more lines before than `droppedLines`. */
  readonly countPartial: boolean
  /** Why the lines are the screen, not the stream (see domain/keyboard.ts); empty claims nothing. */
  readonly screen: ReadonlyArray<ScreenReason>
  /** `lines` start where the previous answer for the run ended, not where the run's output begins. */
  readonly continued: boolean
  /**
   * How the first of `lines` meets the previous answer's last line, when that answer ended within a
   * row: `continues` (the rest of that row: the two are one line), `repeated` (cells of the row
   * before where it ended were rewritten since, so its line comes again whole, in place of that
   * one). Absent when `lines` begin a line of their own.
   */
  readonly firstLine?: FirstLine
  /** Where `lines` end, for the next answer to start after (absent when that is not known). */
  readonly through?: ReadPosition
  /** The program in front in the pane (tmux's `pane_current_command`), for a look at an unfinished run. */
  readonly front?: string
}

/** How a continued output's first line meets the previous answer's last. @category models */
export type FirstLine = "continues" | "repeated"

/** How much of a run's output a call returns at most. @category models */
export interface OutputLimits {
  readonly maxLines: number
  readonly maxBytes: number
  /** When counting the lines left out stops (epoch milliseconds): the call keeps its timeout. */
  readonly countUntil: number
  /** The whole output from the run's beginning, not only what came after the previous answer. */
  readonly whole?: boolean
}

/**
 * Where the output starts (see domain/runStart.ts): from the rows the waiter read with the signal
 * when they hold the only place the typed row can be, else from one read of the candidate windows.
 */
export const startOf = Effect.fn("runReadBack.startOf")(function*(run: Run, head: Head, capture: Capture | undefined) {
  const typed: TypedAt | undefined = parseTypedRecord(head.typed)
  if (typed === undefined) return { _tag: "Unknown" } as const
  const trimmed = trimsPossible(head.history, typed.historyLimit)
  const cleared = !trimmed && head.history < typed.historySize
  const mark = run.markStart ? parseStartMark(head.mark) : undefined
  // Nothing moved the rows: the mark is where the output starts.
  if (mark !== undefined && !trimmed && !cleared) return { _tag: "Found", ...mark, shift: 0 } as const
  const shifts = cleared ? [0] : candidateShifts(typed, head.history)
  // A margin above each window keeps the typed row inside it if output moved the rows meanwhile.
  const spans = shifts.map((shift) => ({
    shift,
    first: Math.max(0, typed.row - shift - windowMargin),
    last: typed.row - shift + run.echoRows
  }))
  // The capture is of the screen in front: with a full-screen program up, not the run's rows.
  const held = capture !== undefined && !head.alternate && shifts.length === 1 && typed.row >= capture.firstRow
  const windows = held
    ? [{ shift: 0, firstRow: capture.firstRow, rows: capture.rows }]
    : (yield* readWindows(run.paneId, head.history, spans, head.alternate))?.map((window, i) => ({
      ...window,
      shift: spans[i]!.shift
    }))
  if (windows === undefined) return { _tag: "Lost" } as const
  const place = placeStart({
    windows,
    typed,
    trailer: run.trailer,
    prompt: run.prompt,
    typedStart: run.typedStart,
    trimmed,
    cleared
  })
  if (mark === undefined || place._tag !== "Found") return place
  return { _tag: "Found", row: mark.row - place.shift, column: mark.column, shift: place.shift } as const
})

/**
 * The run's output from where it starts to where it recorded its end (or the cursor), bounded by
 * `limits`; `capture` is what the waiter read with the signal (or a look read with the head), the
 * newest rows of the output when it holds its end.
 */
export const outputOf = (run: Run, head: Head, limits: OutputLimits, capture?: Capture) =>
  Effect.withSpan(outputFrom(run, head, limits, capture), "Run.readBack")

const outputFrom = (run: Run, head: Head, limits: OutputLimits, capture?: Capture) =>
  Effect.gen(function*() {
    const start = yield* startOf(run, head, capture)
    const record = parseEndRecord(head.endRecord)
    const typed = parseTypedRecord(head.typed)
    // A trim after the record (the next prompt scrolled) moved the end up by whole chunks.
    const chunk = trimChunk(typed?.historyLimit ?? 0)
    const endShift = record !== undefined && head.history < record.historySize
      ? Math.ceil((record.historySize - head.history) / chunk) * chunk
      : 0
    const end = record === undefined
      ? { row: head.history + head.cursorY, column: head.cursorX }
      : { row: record.historySize + record.cursorY - endShift, column: record.cursorX }
    const status = record?.status
    const screen = screenReasons(head.alternate, typed, head.history)
    if (start._tag === "Unknown") {
      return {
        lines: [],
        status,
        startLost: false,
        startUnknown: true,
        droppedLines: 0,
        droppedBytes: 0,
        countPartial: false,
        screen,
        continued: false
      }
    }
    const found = start._tag === "Found" ? start : undefined
    const returned = limits.whole === true || found === undefined
      ? undefined
      : decodeRecord(head.runRecord)?.returned
    const resumed = returned === undefined ? undefined : yield* resumeFrom(run, head, capture, found!, returned)
    const from = resumed?.from ?? found ?? { row: 0, column: 0 }
    const continued = resumed !== undefined
    // Behind a full-screen program the output ends where the screen it saved had its cursor, in cells
    // as on the main screen: the next answer goes on from there (a line it ended within comes once).
    const saved = head.alternate ? yield* savedCursor(run.paneId, head.history) : undefined
    const until = head.alternate
      ? saved ?? { row: head.history + run.screenRows - 1, column: Number.MAX_SAFE_INTEGER }
      : end
    // The rows read with the head are the newest piece: the pane scrolling since cannot move them.
    // With a full-screen program up they are its screen, not the run's rows.
    const read = yield* readOutput({
      paneId: run.paneId,
      history: head.history,
      start: from,
      end: until,
      alternate: head.alternate,
      bottom: head.alternate ? undefined : capture,
      ...limits
    })
    const lines = head.alternate && saved === undefined ? trimBlankTail(read.lines) : read.lines
    const through = found === undefined || (head.alternate && saved === undefined)
      ? undefined
      : positionAfter(until.row, found.shift, { end: until, read, from, resumed })
    return {
      lines,
      status,
      // A trim while reading is output outgrowing the history right then.
      startLost: start._tag === "Lost" || read.trimmed,
      startUnknown: false,
      droppedLines: read.droppedLines,
      droppedBytes: read.droppedBytes,
      countPartial: read.partial,
      screen,
      continued,
      ...(resumed?.firstLine === undefined ? {} : { firstLine: resumed.firstLine }),
      ...(through === undefined ? {} : { through })
    } satisfies RunOutput
  })

/** Where a resume's output starts, and how its first line meets the previous answer's last. @category models */
interface Resumed {
  readonly from: { readonly row: number; readonly column: number }
  readonly firstLine?: FirstLine
  /** The row the line at `from` begins on, when it began above `from` (the previous answer's line). */
  readonly lineRow?: number
}

/**
 * Where the output after the previous answer (`returned`) starts, or `undefined` when that answer
 * ended no later than where the output starts. Its end moved with the typed row (`found.shift`).
 * An answer that ended within a row is followed from its column while the row's cells before it
 * are as that answer read them; once they were rewritten (a line redrawn after a carriage return),
 * from the start of that row's line, and the answer says so. A record without the column starts at
 * the row, as records written before it did.
 */
const resumeFrom = (
  run: Run,
  head: Head,
  capture: Capture | undefined,
  found: { readonly row: number; readonly column: number; readonly shift: number },
  returned: ReadPosition
) =>
  Effect.gen(function*() {
    const moved = found.shift - returned.shift
    const row = returned.row - moved
    const later = (at: { readonly row: number; readonly column: number }) =>
      at.row > found.row || (at.row === found.row && at.column > found.column)
    if (returned.column === undefined || returned.column === 0 || returned.before === undefined) {
      return row > found.row ? ({ from: { row, column: 0 } } satisfies Resumed) : undefined
    }
    const at = { row, column: returned.column }
    if (!later(at)) return undefined
    const cells = yield* rowNow(run, head, capture, row)
    const lineRow = returned.lineRow === undefined ? row : returned.lineRow - moved
    if (cells !== undefined && rowDigest(cells, at.column) === returned.before) {
      return { from: at, firstLine: "continues", ...(lineRow < row ? { lineRow } : {}) } satisfies Resumed
    }
    // Rewritten (or not read again): the line comes again from its start, or from the output's.
    const lineStart = { row: lineRow, column: 0 }
    return { from: later(lineStart) ? lineStart : found, firstLine: "repeated" } satisfies Resumed
  })

/** The cells of absolute row `row` now: from the rows read with the head when they hold it, else read. */
const rowNow = (run: Run, head: Head, capture: Capture | undefined, row: number) => {
  if (
    capture !== undefined && !head.alternate && row >= capture.firstRow && row < capture.firstRow + capture.rows.length
  ) {
    return Effect.succeed<string | undefined>(capture.rows[row - capture.firstRow])
  }
  return Effect.map(
    readWindows(run.paneId, head.history, [{ first: row, last: row }], head.alternate),
    (windows) => windows?.[0]?.rows[0]
  )
}

/**
 * Where an answer's output ended, for the next one (see `ReadPosition`): the row, and when it ended
 * within the row the column, a digest of the cells before it and the row its line begins on (the
 * previous answer's, when this one only went on with that line). Without `within` (the screen a
 * full-screen program saved gave no cursor) only the row.
 */
const positionAfter = (
  row: number,
  shift: number,
  within?: {
    readonly end: { readonly row: number; readonly column: number }
    readonly read: ReadOutput
    readonly from: { readonly row: number; readonly column: number }
    readonly resumed: Resumed | undefined
  }
): ReadPosition => {
  const endRow = within?.read.endRow
  if (within === undefined || endRow === undefined || within.end.column <= 0) return { row, shift }
  const lineRow = endRow.lineRow === within.from.row && within.resumed?.lineRow !== undefined
    ? within.resumed.lineRow
    : endRow.lineRow
  return { row, shift, column: within.end.column, before: rowDigest(endRow.cells, within.end.column), lineRow }
}

/** What the read itself shows of the screen: a full-screen program up, a history cleared since the run was typed. */
const screenReasons = (alternate: boolean, typed: TypedAt | undefined, history: number): Array<ScreenReason> => [
  ...(alternate ? ["alternate-screen" as const] : []),
  ...(typed !== undefined && !trimsPossible(history, typed.historyLimit) && history < typed.historySize
    ? ["clear" as const]
    : [])
]

/** Where the cursor of the screen a full-screen program saved is (absolute row, cell column), or `undefined`. */
const savedCursor = (paneId: PaneId, history: number) =>
  Effect.map(
    Effect.flatMap(
      PaneCommand,
      (tmux) => tmux.run([["display-message", "-p", "-t", paneId, "#{alternate_saved_y}|#{alternate_saved_x}"]])
    ),
    (stdout) => {
      const found = /^([0-9]+)\|([0-9]+)$/u.exec(stdout.trim())
      return found === null ? undefined : { row: history + Number(found[1]), column: Number(found[2]) }
    }
  ).pipe(orPaneNotFound(paneId))

/** The blank rows below the last written one of a saved screen are no output. */
export const trimBlankTail = (lines: ReadonlyArray<string>): ReadonlyArray<string> => {
  let end = lines.length
  while (end > 0 && lines[end - 1]!.trim() === "") end--
  return lines.slice(0, end)
}

/**
 * A look at an unfinished run: its output so far (with a full-screen program up, behind it). Where
 * it ended is kept in the run's record, so the next answer, by any server instance, returns what
 * comes after; only while the record is there (a run collected meanwhile gets no record back). A
 * run the look finds ended (`status` set) keeps no such place: its answer is the final one, whole
 * from where the previous answer ended, and the caller collects it (`settleRun` in runAwait.ts).
 */
export const outputSoFar = Effect.fn("runReadBack.outputSoFar")(function*(run: Run, limits: OutputLimits) {
  const capture = yield* lookAtBottom(run)
  const output: RunOutput = yield* outputOf(run, capture.head, limits, capture)
  const record = decodeRecord(capture.head.runRecord)
  // Kept as the machine's `Progressed`, from the state the look found (guarded: set only while the
  // record is there, so a run collected meanwhile gets no record back).
  const progressed = output.status === undefined && "through" in output && output.through !== undefined &&
      record !== undefined
    ? step(stateOnPane(capture.head, run), {
      _tag: "Progressed",
      record: encodeRecord({ ...record, returned: output.through })
    })
    : undefined
  if (progressed !== undefined) yield* (yield* PaneCommand).run(progressed.commands).pipe(orPaneNotFound(run.paneId))
  const front: RunOutput = capture.head.program === "" ? output : { ...output, front: capture.head.program }
  return front
})

/**
 * Closes a run found in `found` (read from its pane, or where this call's own wait left it), leaving
 * the pane's mark of it: the machine's closing move for that state (domain/runMachine.ts `closing`).
 * An ended run is marked with its status; any other, with none and as unreported, unless `ending`
 * says how it ended. `false` when another call collected it first: the state found is already closed,
 * or the guard refused (see domain/runMachine.ts). A collection that fails otherwise (tmux did not
 * answer) leaves the run recorded: a later call answers it again.
 */
export const collectRun = Effect.fn("runReadBack.collectRun")(
  function*(run: Run, found: RunState, ending?: { readonly status: number | null; readonly ended: RunEnding }) {
    const { status, ended } = ending ??
      (found._tag === "Ended"
        ? { status: found.status, ended: "reported" as const }
        : { status: null, ended: "unreported" as const })
    const move = closing(found, { status, ended, collector: thisTag, at: yield* Clock.currentTimeMillis })
    if (move !== undefined) {
      // Not into a dead channel: a hub's host collects only once the hub answered (services/LinkGate.ts).
      yield* (yield* LinkGate).live
    }
    const collected = move === undefined ? false : yield* (yield* PaneCommand).run(move.commands).pipe(
      Effect.as(true),
      Effect.catchIf(isCollected, () => Effect.succeed(false)),
      Effect.orElseSucceed(() => true)
    )
    yield* (yield* ShellRuns).collect(run)
    return collected
  }
)

/**
 * Reads a finished run back, then collects it. A resume (`fresh` false) answers only when it
 * collected the run: one result per run. A new run's answer is its own, in hand.
 */
export const collectFinished = Effect.fn("runReadBack.collectFinished")(
  function*(run: Run, limits: OutputLimits, fresh: boolean) {
    const capture = yield* lookAtBottom(run)
    if (capture.head.runRecord === "") {
      yield* (yield* ShellRuns).collect(run)
      return yield* collectedElsewhere(run, capture.head.collected)
    }
    const output = yield* outputOf(run, capture.head, limits, capture)
    if (!(yield* collectRun(run, stateOnPane(capture.head, run))) && !fresh) {
      return yield* collectedElsewhere(run, (yield* headOfRun(run.paneId, run.id)).collected)
    }
    return output
  }
)

/** How a collected run ended, as its mark says. */
const endingText = (mark: CollectedMark): string =>
  mark.ended === "reported"
    ? `it ended with exit status ${mark.status}`
    : mark.ended === "shell-exited"
    ? `its command ended the shell (${
      mark.status === null ? "by a signal" : `the shell's exit status ${mark.status}`
    }; exit_status null)`
    : "it ended without a status report (exit_status null: interrupted, as by C-c)"

/** Who collected a run, when and how it ended: from the pane's mark (`mark`) when it is this run's. */
const collectedDetail = (runId: string, mark: string): string => {
  const found = markOf(runId, mark)
  if (found === undefined) {
    return "(its pane's mark of it is gone): its result was returned, to a resume or as the earlier_run of a " +
      "later command's result (a null exit_status there: it never reported one, as when interrupted)"
  }
  return `by server process ${found.collector.split(".")[0]} at ${new Date(found.at).toISOString()}: ${
    endingText(found)
  }; its output went to that earlier answer (a resume, or the earlier_run of a later command's result)`
}

/**
 * Another call (of this process or another) collected the run first: its result went there. The
 * same for a resume and for the call that typed it.
 */
export const collectedElsewhere = (run: { readonly id: string; readonly paneId: string }, mark: string) =>
  new RunCollected({ pane: run.paneId, runId: run.id, collected: collectedDetail(run.id, mark) })

/** A run whose record on its pane does not decode: reported as such, never read as a run. */
export const undecodableRecord = (runId: string, paneId: string, reason: string) =>
  new ArgumentProblem({
    detail: `resume: the record of run ${runId} on pane ${paneId} cannot be read: ${reason}; nothing was done`
  })
