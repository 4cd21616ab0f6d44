/**
 * Rows of a pane as tmux numbers them: captured text split into rows, and absolute rows as
 * `capture-pane -S` takes them.
 */

/** Splits captured text into rows, dropping the blank rows below the last written one. */
export const capturedRows = (stdout: string): Array<string> => {
  const text = stdout.replace(/\s+$/u, "")
  return text === "" ? [] : text.split("\n")
}

/** The `capture-pane -S` row (relative to the screen's top, negative in history) of absolute row `row`. */
export const relativeRow = (row: number, historySize: number): number => Math.max(row - historySize, -historySize)
