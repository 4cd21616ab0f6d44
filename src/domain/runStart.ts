/**
 * Where a run's output starts, found in a bounded number of rows whatever the history's size.
 *
 * A run records where the cursor was when it was typed (an absolute row: history size plus cursor
 * row). Rows keep their absolute index while output scrolls; only a trim of the history moves
 * them up, and tmux trims in whole chunks of a tenth of the history limit (grid.c,
 * `grid_collect_history`, the same in tmux 3.2 and 3.3). So the typed row is now at one of a few
 * candidate rows: the recorded one, or that minus a whole number of chunks. Each candidate is
 * checked in a window of the echo's height, never the whole history.
 *
 * The echo (its last line carries the run's ID) is looked for from the oldest candidate down:
 * rows above the typed row are older than the run and cannot hold its ID, rows below may be its
 * output, which can print anything. When the terminal did not echo (`stty -echo`), the typed
 * row shows the prompt and nothing typed after it; that is looked for from the newest candidate
 * up, since a wrong pick there would hand out rows older than the run.
 */
import { dropCells, sliceCells } from "./cells.ts"

/** Where the run was typed, as recorded in the invocation that typed it. @category models */
export interface TypedAt {
  /** The absolute row of the cursor (history size plus cursor row). */
  readonly row: number
  readonly column: number
  /** The history size then: a history now smaller, with no trim possible, was cleared. */
  readonly historySize: number
  /** The pane's history limit, which sets the chunk its history is trimmed by. */
  readonly historyLimit: number
}

/** How many rows one trim of the history removes. */
export const trimChunk = (historyLimit: number): number => Math.max(1, Math.floor(historyLimit / 10))

/**
 * Whether the history may have been trimmed: once it has been, it never again holds less than
 * its limit minus one chunk (only a clear empties it).
 */
export const trimsPossible = (historySize: number, historyLimit: number): boolean =>
  historySize >= historyLimit - trimChunk(historyLimit)

/** The shifts (rows moved up) the typed row may have had, smallest first. */
export const candidateShifts = (typed: TypedAt, historySize: number): ReadonlyArray<number> => {
  if (!trimsPossible(historySize, typed.historyLimit)) return [0]
  const chunk = trimChunk(typed.historyLimit)
  const shifts: Array<number> = []
  for (let shift = 0; shift <= typed.row; shift += chunk) shifts.push(shift)
  return shifts
}

/**
 * Rows read around one candidate: `rows[0]` is absolute row `firstRow`; the typed row, moved up by
 * `shift`, is at absolute row `typed.row - shift`.
 */
export interface StartWindow {
  readonly shift: number
  readonly firstRow: number
  readonly rows: ReadonlyArray<string>
}

/** What was found of the output's start. @category models */
export type StartPlace =
  /** The output starts at this absolute row and cell column; the typed row had moved up by `shift`. */
  | { readonly _tag: "Found"; readonly row: number; readonly column: number; readonly shift: number }
  /** The typed row was trimmed away (or the history cleared): every retained row is the run's. */
  | { readonly _tag: "Lost" }
  /** The echo is not there and nothing says where the output begins. */
  | { readonly _tag: "Unknown" }

const unspaced = (text: string): string => text.replace(/\s+/gu, "")

/**
 * The index of the row where the echo of the trailer line ends, searching `rows` (untrimmed
 * captured rows) from index `from`: the first row at which the rows so far, white space removed,
 * contain the trailer line, white space removed. Line editors may wrap, indent or redraw the echo;
 * they do not change its characters. -1 when it is not there. Only the last needle's length of
 * the rows before is kept, so the work is linear in the rows searched.
 */
export const findEchoEnd = (rows: ReadonlyArray<string>, from: number, trailer: string): number => {
  const needle = unspaced(trailer)
  let tail = ""
  for (let row = Math.max(0, from); row < rows.length; row++) {
    tail += unspaced(rows[row] ?? "")
    if (tail.includes(needle)) return row
    tail = tail.slice(Math.max(0, tail.length - needle.length + 1))
  }
  return -1
}

/**
 * Places the output's start from the candidate windows (see the module's comment).
 * - `prompt`: the cells before the cursor on the typed row, read when the shell was at its prompt;
 * - `typedStart`: the first word every run's typed text starts with (the protocol's opening), which
 *   an echo, this run's or an older one's, shows after the prompt;
 * - `cleared`: the history shrank under the run without a trim, so the typed row is gone.
 */
export const placeStart = (options: {
  readonly windows: ReadonlyArray<StartWindow>
  readonly typed: TypedAt
  readonly trailer: string
  readonly prompt: string
  readonly typedStart: string
  readonly trimmed: boolean
  readonly cleared: boolean
}): StartPlace => {
  const byShift = [...options.windows].sort((a, b) => a.shift - b.shift)
  const typedIndex = (window: StartWindow) => options.typed.row - window.shift - window.firstRow
  for (const window of [...byShift].reverse()) {
    const echo = findEchoEnd(window.rows, typedIndex(window), options.trailer)
    if (echo !== -1) return { _tag: "Found", row: window.firstRow + echo + 1, column: 0, shift: window.shift }
  }
  const prompt = options.prompt
  const echoStart = unspaced(options.typedStart)
  if (unspaced(prompt) !== "") {
    for (const window of byShift) {
      const index = typedIndex(window)
      const row = index < 0 ? undefined : window.rows[index]
      if (row === undefined || sliceCells(row, options.typed.column) !== prompt) continue
      const rest = dropCells(row, options.typed.column)
      if (echoStart !== "" && unspaced(rest).startsWith(echoStart)) continue
      const at = window.firstRow + index
      // With the echo off, a line editor still moves to a new row when the line is accepted.
      return rest.trim() === "" && window.rows.length > index + 1
        ? { _tag: "Found", row: at + 1, column: 0, shift: window.shift }
        : { _tag: "Found", row: at, column: options.typed.column, shift: window.shift }
    }
  }
  return options.trimmed || options.cleared ? { _tag: "Lost" } : { _tag: "Unknown" }
}
