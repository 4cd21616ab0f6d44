/**
 * Rows of a pane as tmux numbers them: captured text split into rows, where rows wrap on into the
 * next (from the same rows captured with `-N` and `-J`), and absolute rows as `capture-pane -S`
 * takes them.
 */

/** Splits captured text into rows, dropping the blank rows below the last written one. */
export const capturedRows = (stdout: string): Array<string> => {
  const text = stdout.replace(/\s+$/u, "")
  return text === "" ? [] : text.split("\n")
}

/** The `capture-pane -S` row (relative to the screen's top, negative in history) of absolute row `row`. */
export const relativeRow = (row: number, historySize: number): number => Math.max(row - historySize, -historySize)

/**
 * Which of `rows` (a capture with `-N`) wrap on into the next: `joined` (the same rows with `-J`)
 * holds each line as its rows' cells concatenated. The last row's is not known (false).
 */
export const wrapsOf = (rows: ReadonlyArray<string>, joined: ReadonlyArray<string>): Array<boolean> => {
  const wraps: Array<boolean> = []
  let row = 0
  for (const line of joined) {
    if (row >= rows.length) break
    let length = 0
    do {
      length += rows[row]!.length
      wraps.push(true)
      row++
    } while (length < line.length && row < rows.length)
    wraps[wraps.length - 1] = false
  }
  while (wraps.length < rows.length) wraps.push(false)
  return wraps
}

/** The lines of rows, each row joined to the next where it wraps on. */
export const joinRows = (rows: ReadonlyArray<string>, wraps: ReadonlyArray<boolean>): Array<string> => {
  const lines: Array<string> = []
  let line = ""
  rows.forEach((row, i) => {
    line += row
    if (wraps[i] !== true || i === rows.length - 1) {
      lines.push(line)
      line = ""
    }
  })
  return lines
}

/** The rows of a capture: tmux ends every capture with a newline, whether its last row wraps on or not. */
export const captureRows = (text: string): Array<string> => {
  const all = text.split("\n")
  return all.at(-1) === "" ? all.slice(0, -1) : all
}

/** A row's text as a plain capture gives it: tmux removes trailing spaces (spaces only) unless told to keep them. */
export const trimSpaces = (text: string): string => text.replace(/ +$/u, "")

/** One line of a pane: the rows it wrapped across, joined, trailing spaces removed. @category models */
export interface JoinedLine {
  readonly text: string
  /** How many rows it spans. */
  readonly rows: number
}

/** Rows (their cells, as `-N` captures them) as lines, joined where they wrap on. */
export const joinedLines = (cells: ReadonlyArray<string>, wraps: ReadonlyArray<boolean>): Array<JoinedLine> => {
  const lines: Array<JoinedLine> = []
  let text = ""
  let rows = 0
  cells.forEach((row, i) => {
    text += row
    rows++
    if (wraps[i] !== true || i === cells.length - 1) {
      lines.push({ text: trimSpaces(text), rows })
      text = ""
      rows = 0
    }
  })
  return lines
}
