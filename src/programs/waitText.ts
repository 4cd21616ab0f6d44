/**
 * The waiting logic of wait_for_text, written against the PaneReader service and the Clock so
 * that deadlines, polling and progress run under TestClock with a scripted reader. Only output
 * written after the wait starts (or after a given cursor) counts: a row is new when it lies past
 * the rows present at entry, or when its text at the same position changed (so a prompt identical
 * to an old one, printed again below it, is new output).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { rowHash } from "../domain/cursor.ts"
import { Progress } from "../services/Progress.ts"
import { PaneGone } from "../services/errors.ts"
import { type LineMatcher, matchBudgetMs } from "../services/Regex.ts"
import { PaneReader } from "../services/PaneReader.ts"

/** How a wait ended. @category models */
export interface WaitResult {
  readonly outcome: "matched" | "any_output" | "timeout"
  readonly matchedIndex: number | undefined
  readonly matchedLine: string | undefined
  readonly newLines: ReadonlyArray<string>
  readonly alternateScreenSeen: boolean
  readonly elapsedMs: number
}

/** The poll interval: often enough to answer within tens of milliseconds, rare enough to cost little. */
export const pollIntervalMs = 20

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

/**
 * Waits until new output matches one of the matcher's patterns (any new output without a matcher),
 * or the timeout. New means written after the call started, or after `since` when given. Matching
 * counts against the timeout: when the deadline comes during matching, the wait ends there with
 * outcome timeout; matching that runs past its own budget first is an error.
 */
export const waitForText = (paneId: string, matcher: LineMatcher | undefined, timeoutMs: number, since?: Baseline) =>
  Effect.gen(function*() {
    const reader = yield* PaneReader
    const reporter = yield* Progress
    const started = yield* Clock.currentTimeMillis
    const current = yield* reader.read(paneId)
    if (since !== undefined && since.pid !== current.pid) return yield* new PaneGone({ pane: paneId, reason: "was respawned since the cursor was issued" })
    const entry = since === undefined ? current : { ...current, firstRow: since.anchor, rows: [] }
    const anchor = entry.firstRow
    const old = (row: string, index: number) =>
      since === undefined ? entry.rows[index] === row : since.hashes[index] === rowHash(row)
    let alternateScreenSeen = entry.alternate
    let reported = started
    let newLines: ReadonlyArray<string> = []
    // The new lines last matched without a match: unchanged, they are not matched again.
    let unmatched: string | undefined
    while (true) {
      const view = yield* reader.read(paneId, anchor)
      if (view.dead) return yield* new PaneGone({ pane: paneId, reason: "died while waiting for text" })
      if (view.pid !== entry.pid) return yield* new PaneGone({ pane: paneId, reason: "was respawned while waiting for text" })
      const now = yield* Clock.currentTimeMillis
      if (view.alternate) alternateScreenSeen = true
      else {
        newLines = view.rows.filter((row, i) => !old(row, view.firstRow + i - anchor))
        const text = newLines.join("\n")
        if (matcher === undefined) {
          if (newLines.length > 0) return { outcome: "any_output", matchedIndex: undefined, matchedLine: undefined, newLines, alternateScreenSeen, elapsedMs: now - started } satisfies WaitResult
        } else if (newLines.length > 0 && text !== unmatched) {
          const remainingMs = timeoutMs - (now - started)
          const firsts = yield* matcher.firstMatches(newLines, Math.min(remainingMs, matchBudgetMs)).pipe(
            Effect.catchTag("PatternTooCostly", (error) => remainingMs <= matchBudgetMs ? Effect.succeed(undefined) : Effect.fail(error))
          )
          const ended = yield* Clock.currentTimeMillis
          if (firsts === undefined) return { outcome: "timeout", matchedIndex: undefined, matchedLine: undefined, newLines, alternateScreenSeen, elapsedMs: ended - started } satisfies WaitResult
          // The lowest pattern index that matches any line wins, with the first line it matches.
          const index = firsts.reduce((lowest, first) => first === -1 || (lowest !== -1 && lowest <= first) ? lowest : first, -1)
          if (index !== -1) {
            const line = newLines[firsts.indexOf(index)]
            return { outcome: "matched", matchedIndex: index, matchedLine: line, newLines, alternateScreenSeen, elapsedMs: ended - started } satisfies WaitResult
          }
          unmatched = text
        }
      }
      if (now - started >= timeoutMs) return { outcome: "timeout", matchedIndex: undefined, matchedLine: undefined, newLines, alternateScreenSeen, elapsedMs: now - started } satisfies WaitResult
      if (now - reported >= 1000) {
        reported = now
        yield* reporter.progress((now - started) / 1000, timeoutMs / 1000, `waiting on ${paneId}: ${((now - started) / 1000).toFixed(0)}s of ${(timeoutMs / 1000).toFixed(0)}s`)
      }
      yield* Effect.sleep(Math.min(pollIntervalMs, Math.max(1, timeoutMs - (now - started))))
    }
  })
