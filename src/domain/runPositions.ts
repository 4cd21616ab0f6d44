/**
 * Where a run's output starts and ends, as its pane records it (the cursor where it was typed, the
 * start mark, the trailer's end record), and cutting the command's own output out of the pane's rows
 * with them. Pure: the protocol's typed text and its parsers of the shell's state are in
 * domain/shellProtocol.ts.
 */
import { dropCells, sliceCells } from "./cells.ts"
import { protocolNames } from "./protocolNames.ts"

/**
 * The command that records where the cursor was as the run is typed: run in the invocation that
 * types, right before the paste, so nothing can move the cursor in between.
 */
export const typedRecord = (runId: string, paneId: string) =>
  [
    "set-option",
    "-p",
    "-F",
    "-t",
    paneId,
    protocolNames(runId).typed,
    "#{history_size} #{cursor_y} #{cursor_x} #{history_limit}"
  ] as const

/** Parses the typed record into where the run was typed, or `undefined`. */
export const parseTypedRecord = (text: string) => {
  const fields = numbers(text, 4)
  if (fields === undefined) return undefined
  const [historySize, cursorY, cursorX, historyLimit] = fields as [number, number, number, number]
  return { row: historySize + cursorY, column: cursorX, historySize, historyLimit }
}

/** Where the command's output ended, as the trailer recorded it. @category models */
export interface EndRecord {
  readonly historySize: number
  readonly cursorY: number
  readonly cursorX: number
  readonly status: number
}

const numbers = (text: string, count: number): Array<number> | undefined => {
  const fields = text.trim().split(" ").map((field) => Number.parseInt(field, 10))
  return fields.length === count && fields.every((field) => Number.isFinite(field)) ? fields : undefined
}

/** Parses the trailer's record (`history_size cursor_y cursor_x status`), or `undefined`. */
export const parseEndRecord = (text: string): EndRecord | undefined => {
  const fields = numbers(text, 4)
  if (fields === undefined) return undefined
  const [historySize, cursorY, cursorX, status] = fields as [number, number, number, number]
  return { historySize, cursorY, cursorX, status }
}

/** Parses a start mark (`history_size cursor_y cursor_x`) into an absolute row and a column. */
export const parseStartMark = (text: string): { readonly row: number; readonly column: number } | undefined => {
  const fields = numbers(text, 3)
  if (fields === undefined) return undefined
  const [historySize, cursorY, cursorX] = fields as [number, number, number]
  return { row: historySize + cursorY, column: cursorX }
}

/**
 * Cuts the command's output out of captured rows.
 * - `rows`: the pane's rows from some row down to the bottom, untrimmed (`capture-pane -N`);
 *   `joined`: the same range with wrapped rows joined (`capture-pane -J`).
 * - `start`: the first row of output (index into `rows`) and the cell column it starts at.
 * - `endRow`/`endColumn`: the end position as an index into `rows` and a cell column.
 * Lines keep what the terminal keeps: trailing spaces the command wrote stay; a tab is already
 * the spaces it moved over.
 */
export const extractOutput = (
  rows: ReadonlyArray<string>,
  joined: ReadonlyArray<string>,
  start: { readonly row: number; readonly column: number },
  endRow: number,
  endColumn: number
): ReadonlyArray<string> => {
  // Which rows each joined line spans: joined lines are untrimmed rows concatenated.
  const spans: Array<{ readonly first: number; readonly count: number }> = []
  let row = 0
  for (const line of joined) {
    const first = row
    let length = 0
    do {
      length += (rows[row] ?? "").length
      row++
    } while (length < line.length && row < rows.length)
    spans.push({ first, count: row - first })
  }
  const lines: Array<string> = []
  for (const { first, count } of spans) {
    const a = Math.max(first, start.row)
    const b = Math.min(first + count - 1, endRow)
    // Nothing of this line lies in the range, or it lies on the end row where nothing was written.
    if (a > b || (a === endRow && endColumn <= (a === start.row ? start.column : 0))) continue
    let text = ""
    for (let r = a; r <= b; r++) {
      let cells = rows[r] ?? ""
      if (r === endRow) cells = sliceCells(cells, endColumn)
      if (r === start.row && start.column > 0) cells = dropCells(cells, start.column)
      text += cells
    }
    lines.push(text)
  }
  return lines
}
