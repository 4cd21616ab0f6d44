/**
 * Reading a run's output back in bounded pieces: no tmux invocation returns more than a chunk of
 * rows, and no step works on the whole history at once, so a run whose output fills a history of a
 * million lines costs a series of short reads and leaves the thread that answers requests free
 * between them.
 *
 * The newest rows are read with their cells (`-N`) and joined (`-J`) until the returned lines are
 * complete; the rows above them are only counted (`-J`, newlines and bytes), for the truncation
 * report. Rows are addressed absolutely (history size plus screen row); every read carries the
 * history size it was made at, so output still arriving between reads is allowed for, and the rows
 * read with the head of the read-back (the pane's bottom, when they hold the end) are the newest
 * piece: nothing that scrolls the pane afterwards moves the output's end.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { dropCells } from "../domain/cells.ts"
import type { PaneId } from "../domain/ids.ts"
import { joinRows, wrapsOf } from "../domain/rows.ts"
import { extractOutput } from "../domain/runPositions.ts"
import { PaneCommand } from "../services/Tmux.ts"
import { uniqueMarker } from "./formats.ts"
import { orPaneNotFound } from "./pane.ts"

/** Rows one read returns at most, with cells and joined. */
export const rowsPerRead = 10_000
/** Rows one count reads at most (joined only). */
export const rowsPerCount = 50_000

/** A capture of relative rows `from`..`to`; with a full-screen program up, screen rows come from the saved screen. */
const capture = (paneId: PaneId, from: number, to: number, flag: "-N" | "-J", alternate: boolean) => {
  const plain = (a: number, b: number, extra: ReadonlyArray<string>) =>
    ["capture-pane", "-p", ...extra, flag, "-t", paneId, "-S", String(a), "-E", String(b)] as const
  if (!alternate || to < 0) return [plain(from, to, [])]
  if (from >= 0) return [plain(from, to, ["-a"])]
  return [plain(from, -1, []), plain(0, to, ["-a"])]
}

/**
 * Reads parts in one invocation, after the history size they were read at. The line between parts
 * is new for each read, so no row the pane shows can pass for it.
 */
const readParts = (paneId: PaneId, parts: ReadonlyArray<ReturnType<typeof capture>>) =>
  Effect.gen(function*() {
    const tmux = yield* PaneCommand
    const partBreak = uniqueMarker("part")
    const commands = [
      ["display-message", "-p", "-t", paneId, "#{history_size}"] as const,
      ...parts.flatMap((part) => [["display-message", "-p", "-t", paneId, partBreak] as const, ...part])
    ]
    const stdout = yield* tmux.run(commands).pipe(orPaneNotFound(paneId))
    const [head = "", ...texts] = stdout.split(`${partBreak}\n`)
    return { history: Number.parseInt(head, 10), texts }
  })

/** Lines of captured text: tmux ends every capture with a newline, whether its last row wraps on or not. */
const linesOf = (text: string | undefined): Array<string> => {
  const all = (text ?? "").split("\n")
  return all.at(-1) === "" ? all.slice(0, -1) : all
}

/** What a capture of just these rows prints, with `-N` or `-J`. */
const textOf = (rows: ReadonlyArray<string>, wraps: ReadonlyArray<boolean>, flag: "-N" | "-J"): string =>
  flag === "-N" ? rows.map((row) => `${row}\n`).join("") : joinRows(rows, wraps).map((line) => `${line}\n`).join("")

/** Tries at aiming one read before it gives up on a pane that keeps scrolling. */
const attempts = 4
/** Rows read above a range at most, to allow for output arriving while the read is made. */
const maxMargin = 10_000

/** What a read of rows gave: their text, exact, or why it has none. @category models */
type RowsRead =
  | { readonly _tag: "Read"; readonly texts: ReadonlyArray<string>; readonly history: number }
  /** The history was trimmed: rows moved up by an amount the read cannot know. */
  | { readonly _tag: "Trimmed" }
  /** The pane scrolled on between every try: where the rows are was not caught. */
  | { readonly _tag: "Moving" }

/**
 * Reads absolute rows `first`..`last` of each range, given the history size they are addressed at
 * (tmux takes rows relative to the history as it is then). Output that arrived since scrolls the
 * rows up: the read says by how much (it reads the history size with the rows), and is aimed
 * again, with a margin of rows above the range for what arrives meanwhile; the rows read are then
 * cut to the range, with where each line wraps taken from both captures. So the texts are exactly
 * the ranges' rows, however the pane scrolled. A trim moves rows up by an amount the read cannot
 * know, so then it gives up, as it does on a pane that scrolled more than the margin every time.
 */
const readRows = (
  paneId: PaneId,
  history: number,
  ranges: ReadonlyArray<{ readonly first: number; readonly last: number; readonly flags: ReadonlyArray<"-N" | "-J"> }>,
  alternate: boolean
) =>
  Effect.gen(function*() {
    let size = history
    let margin = 0
    for (let attempt = 1; attempt <= attempts; attempt++) {
      // With a margin both captures of every range are read: they tell where to cut.
      const flagsOf = (range: (typeof ranges)[number]) => margin === 0 ? range.flags : (["-N", "-J"] as const)
      const parts = ranges.flatMap((range) =>
        flagsOf(range).map((flag) => capture(paneId, range.first - margin - size, range.last - size, flag, alternate))
      )
      const read = yield* readParts(paneId, parts)
      if (read.history < size) return { _tag: "Trimmed" } satisfies RowsRead
      const moved = read.history - size
      if (moved === 0 && margin === 0) {
        return { _tag: "Read", texts: read.texts, history: read.history } satisfies RowsRead
      }
      if (moved <= margin) {
        const texts = ranges.flatMap((range, i) => {
          const rows = linesOf(read.texts[2 * i])
          const wraps = wrapsOf(rows, linesOf(read.texts[2 * i + 1]))
          // The rows read begin `margin - moved` rows above the range (or at the top of the history).
          const firstRead = Math.max(0, range.first - margin + moved)
          const from = Math.max(0, range.first - firstRead)
          const to = range.last - firstRead + 1
          return range.flags.map((flag) => textOf(rows.slice(from, to), wraps.slice(from, to), flag))
        })
        return { _tag: "Read", texts, history: read.history } satisfies RowsRead
      }
      size = read.history
      margin = Math.min(maxMargin, Math.max(16, 2 * moved))
    }
    return { _tag: "Moving" } satisfies RowsRead
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
    (read) =>
      read._tag === "Read"
        ? read.texts.map((text, i) => ({ firstRow: windows[i]!.first, rows: linesOf(text) }))
        : undefined
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
  /**
   * Counting stopped (at `countUntil`, at a trim, or on a pane that scrolled on faster than it was
   * read): there are more lines before than `droppedLines`.
   */
  readonly partial: boolean
  /** The end row's cells and the row its line begins on (at or below `start`), when the end row was read. */
  readonly endRow?: EndRow
}

/** The row an output ended on, as read. @category models */
export interface EndRow {
  readonly cells: string
  readonly lineRow: number
}

/** Rows read with the head of the read (so addressed at its history size): the pane's bottom. @category models */
export interface BottomRows {
  /** The absolute row of `rows[0]`. */
  readonly firstRow: number
  readonly rows: ReadonlyArray<string>
  /** The same rows with `-J`. */
  readonly joined: ReadonlyArray<string>
}

const newlines = (text: string): number => {
  let count = 0
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++
  return count
}

const bytesOf = (lines: ReadonlyArray<string>) => lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0)

/** A cell position: absolute row, cell column. */
interface Place {
  readonly row: number
  readonly column: number
}

/** What `readOutput` reads, and the bounds it reads to. */
interface ReadOutputOptions {
  readonly paneId: PaneId
  readonly history: number
  readonly start: Place
  readonly end: Place
  readonly maxLines: number
  readonly maxBytes: number
  readonly countUntil: number
  readonly alternate: boolean
  readonly bottom?: BottomRows | undefined
}

/**
 * The rows read so far, from `top` to the end, whether each wraps on into the next, and whether the
 * row above `top` wraps on into it (the first line began above; not known until that row is read).
 */
interface Piece {
  readonly rows: ReadonlyArray<string>
  readonly wraps: ReadonlyArray<boolean>
  readonly top: number
  readonly above: boolean | undefined
}

/** The rows the bottom read already holds, from `start` down, when they hold the end; else no rows. */
const bottomPiece = (bottom: BottomRows | undefined, start: Place, end: Place): Piece => {
  const inBottom = bottom !== undefined && end.row >= bottom.firstRow &&
    end.row < bottom.firstRow + bottom.rows.length
  if (!inBottom) return { rows: [], wraps: [], top: end.row + 1, above: undefined }
  const all = wrapsOf(bottom.rows, bottom.joined)
  const from = Math.max(0, start.row - bottom.firstRow)
  return {
    rows: bottom.rows.slice(from, end.row - bottom.firstRow + 1),
    wraps: all.slice(from, end.row - bottom.firstRow + 1),
    top: bottom.firstRow + from,
    above: from > 0 ? all[from - 1] : undefined
  }
}

/** The end row is the last of `rows` once it is read; its line begins after the last row above it that ends a line. */
const endRowOf = ({ rows, top, wraps }: Piece, end: Place): { endRow?: EndRow } => {
  if (rows.length === 0 || top + rows.length - 1 !== end.row) return {}
  let first = rows.length - 1
  while (first > 0 && wraps[first - 1] === true) first--
  return { endRow: { cells: rows.at(-1)!, lineRow: top + first } }
}

/** The output's lines in the rows read: from `start` (or the first row read) to `end`. */
const keptOf = ({ rows, top, wraps }: Piece, start: Place, end: Place) =>
  extractOutput(
    rows,
    joinRows(rows, wraps),
    { row: 0, column: top === start.row ? start.column : 0 },
    end.row - top,
    end.column
  )

/** Whether the rows read meet the bound. */
const enough = (piece: Piece, options: ReadOutputOptions) => {
  // The first line may have begun above `top`: only the others count as complete.
  const lines = keptOf(piece, options.start, options.end).slice(1)
  return lines.length > options.maxLines || bytesOf(lines) > options.maxBytes
}

/** The answer when a read of the rows failed: what was read, with nothing counted before it. */
const cut = (piece: Piece, options: ReadOutputOptions, read: RowsRead) =>
  ({
    lines: keptOf(piece, options.start, options.end),
    droppedLines: 0,
    droppedBytes: 0,
    trimmed: read._tag === "Trimmed",
    partial: true,
    ...endRowOf(piece, options.end)
  }) satisfies ReadOutput

/**
 * Reads pieces of rows upward from the piece's top until the lines meet the bound or `start` is
 * reached: the rows with the history size of the last read, or the read that failed.
 */
const readUpward = Effect.fnUntraced(function*(options: ReadOutputOptions, from: Piece) {
  const { paneId, start, alternate } = options
  let piece = from
  let history = options.history
  while (piece.top > start.row && !enough(piece, options)) {
    const first = Math.max(start.row, piece.top - rowsPerRead)
    // One row more above and below: where the piece's first and last rows wrap on is known then.
    const over = first > 0 ? 1 : 0
    const read = yield* readRows(
      paneId,
      history,
      [{ first: first - over, last: piece.top, flags: ["-N", "-J"] }],
      alternate
    )
    if (read._tag !== "Read") return { _tag: "Failed", piece, read } as const
    history = read.history
    const pieceRows = linesOf(read.texts[0])
    const pieceWraps = wrapsOf(pieceRows, linesOf(read.texts[1]))
    piece = {
      rows: [...pieceRows.slice(over, over + piece.top - first), ...piece.rows],
      wraps: [...pieceWraps.slice(over, over + piece.top - first), ...piece.wraps],
      above: over === 1 && pieceWraps[0] === true,
      top: first
    }
  }
  return { _tag: "Read", piece, history } as const
})

/** What was counted before the lines returned, and whether counting saw all of it. */
type Counted = Pick<ReadOutput, "droppedLines" | "droppedBytes" | "trimmed" | "partial">

/**
 * Counts the lines and bytes of the rows from `start` to the row above `top`, a chunk at a time from
 * the bottom up, onto what `counted` holds, until `countUntil`. `above`: the row above `top` wraps on into it.
 */
const countAbove = Effect.fnUntraced(function*(
  options: ReadOutputOptions,
  top: number,
  above: boolean,
  history: number,
  counted: Pick<Counted, "droppedLines" | "droppedBytes">
) {
  const { paneId, start, alternate } = options
  let { droppedLines, droppedBytes } = counted
  // Counted as the rows come: for a run still printing, that is as of the read.
  for (let last = top - 1; last >= start.row; last -= rowsPerCount) {
    if ((yield* Clock.currentTimeMillis) >= options.countUntil) {
      return { droppedLines, droppedBytes, trimmed: false, partial: true } satisfies Counted
    }
    const first = Math.max(start.row, last - rowsPerCount + 1)
    // tmux ends a capture with a newline even where its last row wraps on: the row below is read
    // with it, for whether the line goes on into the rows already counted.
    const below = last === top - 1 ? [] : [{ first: last, last: last + 1, flags: ["-N", "-J"] as const }]
    const read = yield* readRows(paneId, history, [{ first, last, flags: ["-J"] }, ...below], alternate)
    if (read._tag !== "Read") {
      return { droppedLines, droppedBytes, trimmed: read._tag === "Trimmed", partial: true } satisfies Counted
    }
    history = read.history
    let text = read.texts[0] ?? ""
    const goesOn = last === top - 1 ? above : wrapsOf(linesOf(read.texts[1]), linesOf(read.texts[2]))[0] === true
    // The line that goes on below was counted there, newline and all (the first returned one, with `above`).
    if (goesOn) text = text.slice(0, -1)
    if (first === start.row && start.column > 0) {
      const firstLine = text.slice(0, text.includes("\n") ? text.indexOf("\n") : text.length)
      text = dropCells(firstLine, start.column) + text.slice(firstLine.length)
    }
    droppedLines += newlines(text)
    droppedBytes += Buffer.byteLength(text)
  }
  return { droppedLines, droppedBytes, trimmed: false, partial: false } satisfies Counted
})

/**
 * The output from `start` (absolute row, cell column) to `end` (absolute row, cell column), read
 * from the end up until the bound is met, the rest counted. `bottom`, the rows read with the
 * head, is the newest piece when it holds the end: it was read at the head's history size, so no
 * scrolling since can move it.
 */
export const readOutput = (options: ReadOutputOptions) =>
  Effect.gen(function*() {
    const { paneId, start, end, alternate } = options
    const upward = yield* readUpward(options, bottomPiece(options.bottom, start, end))
    if (upward._tag === "Failed") return cut(upward.piece, options, upward.read)
    const { piece } = upward
    // The history size the next read is aimed at: the latest one seen.
    let history = upward.history
    if (piece.top === start.row) {
      return {
        lines: keptOf(piece, start, end),
        droppedLines: 0,
        droppedBytes: 0,
        trimmed: false,
        partial: false,
        ...endRowOf(piece, end)
      }
    }
    let above = piece.above
    if (above === undefined) {
      // The bottom rows alone were enough: whether the row above them wraps on into them is read.
      const read = yield* readRows(
        paneId,
        history,
        [{ first: piece.top - 1, last: piece.top, flags: ["-N", "-J"] }],
        alternate
      )
      if (read._tag !== "Read") return cut(piece, options, read)
      history = read.history
      above = wrapsOf(linesOf(read.texts[0]), linesOf(read.texts[1]))[0] === true
    }
    let lines = keptOf(piece, start, end)
    let droppedLines = 0
    let droppedBytes = 0
    if (above) {
      // The first line began above: it is counted with the rows above, not returned.
      droppedLines = 1
      droppedBytes = Buffer.byteLength(lines[0] ?? "") + 1
      lines = lines.slice(1)
    }
    const counted = yield* countAbove(options, piece.top, above, history, { droppedLines, droppedBytes })
    return { lines, ...counted, ...endRowOf(piece, end) } satisfies ReadOutput
  })
