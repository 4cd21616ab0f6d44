/**
 * The waiting logic of wait_for_text, written against the PaneReader service and the Clock so
 * that deadlines, polling and progress run under TestClock with a scripted reader. Only output
 * written after the wait starts (or after a given cursor) counts: a row is new when it lies past
 * the rows present at entry, or when its text at the same position changed (so a prompt identical
 * to an old one, printed again below it, is new output). Patterns match lines, the rows a line
 * wrapped over joined, and a line is new when any of its rows is. Rows are positions counted from
 * the top of the history, which move when the history is cleared or tmux trims it at its limit: the
 * rows just above the anchor are watched, and when they change the anchor is found again by them. The
 * reader's pacer says at each tick whether a look can find anything new (the first look always
 * happens): a quiet pane is not read again until something changed.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { rowHash } from "../domain/cursor.ts"
import type { PaneId } from "../domain/ids.ts"
import { PaneGone } from "../services/errors.ts"
import { everyTick, type Pacer, PaneReader, type PaneView } from "../services/PaneReader.ts"
import { Progress, type ProgressShape } from "../services/Progress.ts"
import { type LineMatcher, matchBudgetMs } from "../services/Regex.ts"

/** How a wait ended. @category models */
export interface WaitResult {
  readonly outcome: "matched" | "any_output" | "timeout"
  readonly matchedIndex: number | undefined
  readonly matchedLine: string | undefined
  readonly newLines: ReadonlyArray<string>
  readonly alternateScreenSeen: boolean
  readonly elapsedMs: number
}

/** The tick of a reader without a pacer (a plain poll): an answer within tens of milliseconds of the text. */
export const pollIntervalMs = 20

/** How many rows above the anchor are watched to notice that the pane's content moved. */
const contextRows = 3

const sameRows = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) =>
  a.length === b.length && a.every((row, i) => row === b[i])

/** The last index at or before `limit` where `block` starts in `rows`, or -1 (an empty block is never found). */
const lastBlockAtOrBefore = (rows: ReadonlyArray<string>, block: ReadonlyArray<string>, limit: number): number => {
  if (block.length === 0) return -1
  for (let i = Math.min(limit, rows.length - block.length); i >= 0; i--) {
    if (block.every((row, k) => (rows[i + k] ?? "") === row)) return i
  }
  return -1
}

/**
 * Where "new" starts when the caller brings it: a capture_since cursor's anchor row and the
 * hashes of the rows from there down, as they were when the cursor was issued.
 * @category models
 */
export interface Baseline {
  readonly pid: number
  readonly anchor: number
  readonly hashes: ReadonlyArray<string>
}

/** One wait: the pane it reads, what it waits for, and what it keeps from one look to the next. */
interface Waiting {
  readonly reader: PaneReader["Service"]
  readonly paneId: PaneId
  /** The pane's process at entry: another one means the pane was respawned. */
  readonly pid: number
  readonly matcher: LineMatcher | undefined
  readonly timeoutMs: number
  readonly started: number
  /** The anchor at entry: the rows above it that were rewritten count as new only while it stays. */
  readonly entryAnchor: number
  /**
   * The rows above the anchor at entry: while the anchor stays, one rewritten since is new output
   * (a screen cleared and written over, the cursor back below the anchor by the next poll).
   */
  readonly entryAbove: ReadonlyArray<string> | undefined
  /** The absolute row where new output may begin. */
  anchor: number
  /** Whether a row at or below the anchor (at `index` from it) is as it was when the wait began. */
  old: (row: string, index: number) => boolean
  /** The history size, as the last poll saw it. */
  history: number
  /** The rows just above the anchor, as the last poll saw them. */
  context: ReadonlyArray<string>
  alternateScreenSeen: boolean
  newLines: ReadonlyArray<string>
  /** The new lines last matched without a match: unchanged, they are not matched again. */
  unmatched: string | undefined
}

/** The answer as things stand at `at`, with the match when there is one. */
const resultOf = (
  wait: Waiting,
  outcome: WaitResult["outcome"],
  at: number,
  match?: { readonly index: number; readonly line: string | undefined }
): WaitResult => ({
  outcome,
  matchedIndex: match?.index,
  matchedLine: match?.line,
  newLines: wait.newLines,
  alternateScreenSeen: wait.alternateScreenSeen,
  elapsedMs: at - wait.started
})

/** One look from a few rows above the anchor; those rows tell whether the content moved. */
const lookAbove = (wait: Pick<Waiting, "reader" | "paneId" | "pid" | "anchor">) =>
  Effect.gen(function*() {
    const { reader, paneId, anchor } = wait
    const view = yield* reader.read(paneId, Math.max(0, anchor - contextRows), { joined: true })
    if (view.dead) return yield* new PaneGone({ pane: paneId, reason: "died while waiting for text" })
    if (view.pid !== wait.pid) {
      return yield* new PaneGone({ pane: paneId, reason: "was respawned while waiting for text" })
    }
    const top = Math.max(0, anchor - contextRows)
    const above = Array.from({ length: anchor - top }, (_, i) => view.rows[top + i - view.firstRow] ?? "")
    return { view, above }
  })

/**
 * Finds the anchor again after the rows above it changed (or the history shrank), by those rows
 * as the last poll saw them, in the whole pane: `view` is the look that saw the change.
 */
const relocateAnchor = Effect.fnUntraced(function*(wait: Waiting, view: PaneView, shrank: boolean) {
  const { context } = wait
  const whole = yield* wait.reader.read(wait.paneId, 0)
  const at = lastBlockAtOrBefore(whole.rows, context, wait.anchor - context.length - whole.firstRow)
  const cursorAbove = view.historySize + view.cursorY < wait.anchor
  if (at === -1 && !shrank && !cursorAbove) {
    // Rows above the anchor rewritten in place (a progress display, a prompt redrawn): nothing
    // moved, and what was there before the call stays old.
  } else if (at === -1) {
    // History cleared or trimmed past the anchor: whatever the pane holds was written since.
    // Screen cleared (the cursor went above the anchor): whatever the screen holds.
    wait.anchor = shrank ? whole.firstRow : view.historySize
    wait.old = () => false
  } else {
    wait.anchor = whole.firstRow + at + context.length
  }
})

/** The lines of a look on the normal screen that hold new output: rows past the anchor, or rewritten above it. */
const newLinesOf = (wait: Waiting, view: PaneView, above: ReadonlyArray<string>): ReadonlyArray<string> => {
  const { anchor, entryAbove, old } = wait
  const top = anchor - above.length
  const rewritable = anchor === wait.entryAnchor && entryAbove !== undefined
  const isNew = (row: string, at: number) =>
    at >= anchor
      ? !old(row, at - anchor)
      : rewritable && at >= top && row !== (entryAbove[at - top] ?? "") && row.trim() !== ""
  // A line with any new row is new, whole: a pattern matches across the rows the pane wrapped it over.
  const lines = view.lines ?? view.rows.map((text) => ({ text, rows: 1 }))
  let at = view.firstRow
  return lines.flatMap((line) => {
    const first = at - view.firstRow
    at += line.rows
    return view.rows.slice(first, first + line.rows).some((row, k) => isNew(row, view.firstRow + first + k))
      ? [line.text]
      : []
  })
}

/**
 * What the new lines settle at `now`: the answer when they end the wait (any of them without a
 * matcher; a match, or the deadline reached while matching, with one), else undefined.
 */
const settleNewLines = Effect.fnUntraced(function*(wait: Waiting, now: number) {
  const { matcher, newLines, timeoutMs } = wait
  const text = newLines.join("\n")
  if (matcher === undefined) {
    if (newLines.length > 0) {
      return resultOf(wait, "any_output", now)
    }
  } else if (newLines.length > 0 && text !== wait.unmatched) {
    const remainingMs = timeoutMs - (now - wait.started)
    const firsts = yield* matcher.firstMatches(newLines, Math.min(remainingMs, matchBudgetMs)).pipe(
      Effect.catchTag(
        "PatternTooCostly",
        (error) => remainingMs <= matchBudgetMs ? Effect.succeed(undefined) : Effect.fail(error)
      )
    )
    const ended = yield* Clock.currentTimeMillis
    if (firsts === undefined) {
      return resultOf(wait, "timeout", ended)
    }
    // The lowest pattern index that matches any line wins, with the first line it matches.
    const index = firsts.reduce(
      (lowest, first) => first === -1 || (lowest !== -1 && lowest <= first) ? lowest : first,
      -1
    )
    if (index !== -1) {
      return resultOf(wait, "matched", ended, { index, line: newLines[firsts.indexOf(index)] })
    }
    wait.unmatched = text
  }
  return undefined
})

/** One look and what it settles: the answer when it ends the wait. */
const step = Effect.fnUntraced(function*(wait: Waiting, pacer: Pacer) {
  let { view, above } = yield* lookAbove(wait)
  const shrank = view.historySize < wait.history
  wait.history = view.historySize
  if (shrank || !sameRows(above, wait.context)) {
    // Found again where the content moved to: up, or in place when a resize shrank the history.
    yield* relocateAnchor(wait, view, shrank)
    ;({ view, above } = yield* lookAbove(wait))
    wait.history = view.historySize
  }
  wait.context = above
  yield* pacer.looked(
    [view.historySize, view.cursorY, view.firstRow, view.alternate, wait.anchor, ...above, ...view.rows].join("\n")
  )
  const now = yield* Clock.currentTimeMillis
  if (view.alternate) {
    wait.alternateScreenSeen = true
    return undefined
  }
  wait.newLines = newLinesOf(wait, view, above)
  return yield* settleNewLines(wait, now)
})

/** Tells the client how long the wait has run, of its timeout. */
const reportProgress = (reporter: ProgressShape, paneId: PaneId, started: number, now: number, timeoutMs: number) =>
  reporter.progress(
    (now - started) / 1000,
    timeoutMs / 1000,
    `waiting on ${paneId}: ${((now - started) / 1000).toFixed(0)}s of ${(timeoutMs / 1000).toFixed(0)}s`
  )

/**
 * Waits until new output matches one of the matcher's patterns (any new output without a matcher),
 * or the timeout. New means written after the call started, or after `since` when given. Matching
 * counts against the timeout: when the deadline comes during matching, the wait ends there with
 * outcome timeout; matching that runs past its own budget first is an error.
 */
export const waitForText = Effect.fn("waitText.waitForText")(
  function*(paneId: PaneId, matcher: LineMatcher | undefined, timeoutMs: number, since?: Baseline) {
    const reader = yield* PaneReader
    const reporter = yield* Progress
    const started = yield* Clock.currentTimeMillis
    const current = yield* reader.read(paneId)
    if (since !== undefined && since.pid !== current.pid) {
      return yield* new PaneGone({ pane: paneId, reason: "was respawned since the cursor was issued" })
    }
    const entry = since === undefined ? current : { ...current, firstRow: since.anchor, rows: [] }
    // Taken at entry, so that a trim before the first poll is told from a clear.
    const context = (yield* lookAbove({ reader, paneId, pid: entry.pid, anchor: entry.firstRow })).above
    const wait: Waiting = {
      reader,
      paneId,
      pid: entry.pid,
      matcher,
      timeoutMs,
      started,
      entryAnchor: entry.firstRow,
      entryAbove: since === undefined ? context : undefined,
      anchor: entry.firstRow,
      old: (row, index) => since === undefined ? entry.rows[index] === row : since.hashes[index] === rowHash(row),
      history: current.historySize,
      context,
      alternateScreenSeen: entry.alternate,
      newLines: [],
      unmatched: undefined
    }
    const pacer = reader.pacer === undefined ? everyTick(pollIntervalMs) : yield* reader.pacer(current)
    let reported = started
    while (true) {
      if (yield* pacer.due) {
        const ended = yield* step(wait, pacer)
        if (ended !== undefined) return ended
      }
      const now = yield* Clock.currentTimeMillis
      if (now - started >= timeoutMs) {
        return resultOf(wait, "timeout", now)
      }
      if (now - reported >= 1000) {
        reported = now
        yield* reportProgress(reporter, paneId, started, now, timeoutMs)
      }
      yield* Effect.sleep(Math.min(yield* pacer.tickMs, Math.max(1, timeoutMs - (now - started))))
    }
  }
)
