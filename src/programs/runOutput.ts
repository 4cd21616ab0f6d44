/**
 * Reading a run's output back in bounded pieces: no tmux invocation returns more than a chunk of
 * rows, and no step works on the whole history at once, so a run whose output fills a history of a
 * million lines costs a series of short reads and leaves the thread that answers requests free
 * between them.
 *
 * The newest rows are read with their cells (`-N`) and joined (`-J`) until the returned lines are
 * complete; the rows above them are only counted (`-J`, newlines and bytes), for the truncation
 * report. Rows are addressed absolutely (history size plus screen row); every read carries the
 * history size it was made at, so output still arriving between reads is allowed for.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { dropCells } from "../domain/cells.ts"
import type { PaneId } from "../domain/ids.ts"
import { extractOutput } from "../domain/shellProtocol.ts"
import { PaneCommand } from "../services/Tmux.ts"
import { orPaneNotFound } from "./pane.ts"

/** Rows one read returns at most, with cells and joined. */
export const rowsPerRead = 10_000
/** Rows one count reads at most (joined only). */
export const rowsPerCount = 50_000

/** The line printed between parts of one read. */
const partBreak = "lmcp-part\n"

/** A capture of relative rows `from`..`to`; with a full-screen program up, screen rows come from the saved screen. */
const capture = (paneId: PaneId, from: number, to: number, flag: "-N" | "-J", alternate: boolean) => {
  const plain = (a: number, b: number, extra: ReadonlyArray<string>) =>
    ["capture-pane", "-p", ...extra, flag, "-t", paneId, "-S", String(a), "-E", String(b)] as const
  if (!alternate || to < 0) return [plain(from, to, [])]
  if (from >= 0) return [plain(from, to, ["-a"])]
  return [plain(from, -1, []), plain(0, to, ["-a"])]
}

/** Reads parts in one invocation, each after the history size it was read at. */
const readParts = (paneId: PaneId, parts: ReadonlyArray<ReturnType<typeof capture>>) =>
  Effect.gen(function*() {
    const tmux = yield* PaneCommand
    const commands = [
      ["display-message", "-p", "-t", paneId, "#{history_size}"] as const,
      ...parts.flatMap((part) => [["display-message", "-p", "-t", paneId, "lmcp-part"] as const, ...part])
    ]
    const stdout = yield* tmux.run(commands).pipe(orPaneNotFound(paneId))
    const [head = "", ...texts] = stdout.split(partBreak)
    return { history: Number.parseInt(head, 10), texts }
  })

/** Lines of captured text: every line ends with a newline but a last one that wraps on. */
const linesOf = (text: string | undefined): Array<string> => {
  const all = (text ?? "").split("\n")
  return all.at(-1) === "" ? all.slice(0, -1) : all
}

/**
 * Reads absolute rows `first`..`last` as parts, given the history size they are addressed at.
 * Output that arrived since moved the history: the read is aimed again, and after three tries
 * taken as it came, `offset` rows further down. A trim moves rows up by an amount the read cannot
 * know, so then it gives up (`undefined`).
 */
const readRows = (
  paneId: PaneId,
  history: number,
  ranges: ReadonlyArray<{ readonly first: number; readonly last: number; readonly flags: ReadonlyArray<"-N" | "-J"> }>,
  alternate: boolean
) =>
  Effect.gen(function*() {
    let size = history
    for (let attempt = 1;; attempt++) {
      const parts = ranges.flatMap((range) =>
        range.flags.map((flag) => capture(paneId, range.first - size, range.last - size, flag, alternate))
      )
      const read = yield* readParts(paneId, parts)
      if (read.history < size) return undefined
      if (read.history === size || attempt === 3) return { texts: read.texts, offset: read.history - history }
      size = read.history
    }
  })

/** Reads candidate windows (absolute first and last rows) in one invocation: their untrimmed rows and first row. */
export const readWindows = (
  paneId: PaneId,
  history: number,
  windows: ReadonlyArray<{ readonly first: number; readonly last: number }>,
  alternate: boolean
) =>
  Effect.map(
    readRows(paneId, history, windows.map((window) => ({ ...window, flags: ["-N"] as const })), alternate),
    (read) => read?.texts.map((text, i) => ({ firstRow: windows[i]!.first + read.offset, rows: linesOf(text) }))
  )

/** A run's output, bounded, with what was left out before it. @category models */
export interface ReadOutput {
  /** The newest lines: at least `maxLines` of them and `maxBytes` of text, when there are that many. */
  readonly lines: ReadonlyArray<string>
  /** Lines before `lines`, and their bytes (each with its newline), that were counted, not returned. */
  readonly droppedLines: number
  readonly droppedBytes: number
  /** The history was trimmed while it was read: the rows above `lines` moved out of reach. */
  readonly trimmed: boolean
  /** Counting stopped (at `countUntil`, or at a trim): there are more lines before than `droppedLines`. */
  readonly partial: boolean
}

const newlines = (text: string): number => {
  let count = 0
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++
  return count
}

/**
 * The output from `start` (absolute row, cell column) to `end` (absolute row, cell column), read
 * from the end up until the bound is met, the rest counted.
 */
export const readOutput = (options: {
  readonly paneId: PaneId
  readonly history: number
  readonly start: { readonly row: number; readonly column: number }
  readonly end: { readonly row: number; readonly column: number }
  readonly maxLines: number
  readonly maxBytes: number
  readonly countUntil: number
  readonly alternate: boolean
}) =>
  Effect.gen(function*() {
    const { paneId, start, end, alternate } = options
    let rows: Array<string> = []
    let joined: Array<string> = []
    let top = end.row + 1
    // The first joined line may have begun above `top`: only the others count as complete.
    const enough = () =>
      joined.length - 1 > options.maxLines ||
      joined.slice(1).reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0) > options.maxBytes
    while (top > start.row && !enough()) {
      const first = Math.max(start.row, top - rowsPerRead)
      const read = yield* readRows(paneId, options.history, [{ first, last: top - 1, flags: ["-N", "-J"] }], alternate)
      if (read === undefined) {
        return { ...extracted(rows, joined, { row: top, column: 0 }, top, end), trimmed: true, partial: true }
      }
      // Output still arriving moved the rows down: the newest piece is taken as it came (rows past
      // the end are left out); a piece above must meet the one below, else the rest is counted.
      if (read.offset > 0 && joined.length > 0) break
      const texts = read.texts
      const lines = linesOf(texts[1])
      // A line that wraps across the boundary is one line.
      joined = joined.length > 0 && !(texts[1] ?? "").endsWith("\n")
        ? [...lines.slice(0, -1), lines.at(-1)! + joined[0]!, ...joined.slice(1)]
        : [...lines, ...joined]
      rows = [...linesOf(texts[0]), ...rows]
      top = first + read.offset
    }
    const kept = extracted(rows, joined, top === start.row ? start : { row: top, column: 0 }, top, end)
    if (top === start.row) return { ...kept, trimmed: false, partial: false } satisfies ReadOutput
    let lines = kept.lines
    let droppedLines = 0
    let droppedBytes = 0
    // Counted as the rows come: for a run still printing, that is as of the read.
    for (let last = top - 1; last >= start.row; last -= rowsPerCount) {
      if ((yield* Clock.currentTimeMillis) >= options.countUntil) {
        return { lines, droppedLines, droppedBytes, trimmed: false, partial: true } satisfies ReadOutput
      }
      const first = Math.max(start.row, last - rowsPerCount + 1)
      const read = yield* readRows(paneId, options.history, [{ first, last, flags: ["-J"] }], alternate)
      if (read === undefined) {
        return { lines, droppedLines, droppedBytes, trimmed: true, partial: true } satisfies ReadOutput
      }
      let text = read.texts[0] ?? ""
      if (last === top - 1 && !text.endsWith("\n")) {
        // The first line read began above: it is counted with the rows above, not returned.
        droppedLines++
        droppedBytes += Buffer.byteLength(lines[0] ?? "") + 1
        lines = lines.slice(1)
      }
      if (first === start.row && start.column > 0) {
        const firstLine = text.slice(0, text.includes("\n") ? text.indexOf("\n") : text.length)
        text = dropCells(firstLine, start.column) + text.slice(firstLine.length)
      }
      droppedLines += newlines(text)
      droppedBytes += Buffer.byteLength(text)
    }
    return { lines, droppedLines, droppedBytes, trimmed: false, partial: false } satisfies ReadOutput
  })

const extracted = (
  rows: ReadonlyArray<string>,
  joined: ReadonlyArray<string>,
  from: { readonly row: number; readonly column: number },
  top: number,
  end: { readonly row: number; readonly column: number }
) => ({
  lines: extractOutput(rows, joined, { row: from.row - top, column: from.column }, end.row - top, end.column),
  droppedLines: 0,
  droppedBytes: 0
})
