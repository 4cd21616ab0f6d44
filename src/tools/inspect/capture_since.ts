/** capture_since: the rows a pane gained (or rewrote) since a cursor, with a fresh cursor. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { tailBound } from "../../domain/bounds.ts"
import { type CursorState, decodeCursor, encodeCursor, rowHash } from "../../domain/cursor.ts"
import { PaneId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { boundFields, outputLimits, truncationFields } from "../../programs/outputBounds.ts"
import { readAndCapture, stateFields } from "../../programs/pane.ts"
import { usually } from "../../programs/usual.ts"
import { idVariable } from "../../programs/variables.ts"
import { CursorInvalid, PaneGone } from "../../services/errors.ts"
import { ProcessSecret } from "../../services/ProcessSecret.ts"
import { SocketPin } from "../../services/SocketPin.ts"
import { defineTool } from "../define.ts"

/** Reads the pane's state and rows from relative row `from` to the bottom, in one invocation. */
const look = (paneId: PaneId, from: number | "-") =>
  Effect.gen(function*() {
    const { state, captured } = yield* readAndCapture(paneId, stateFields, ["-N", "-S", String(from), "-E", "-"])
    const rows = captured.split("\n")
    rows.pop()
    return { state, rows: rows.map((row) => row.replace(/\s+$/u, "")) }
  })

/** How often a read from the rows above the anchor is aimed again while output keeps arriving. */
const readAttempts = 3

/** Rows above the anchor a cursor keeps, to notice that the content moved under it. */
const contextRows = 3

const blankHash = rowHash("")

/**
 * Where the cursor's anchor sits among `rows` (read from the top of the history), found by content
 * at a row `fits` allows: after the unique run of the rows that were above it, else at the unique
 * whole run [anchor, below...]. Blank runs identify nothing (a blank anchor would match the blank
 * cursor row), nor does a run cut off by the last row.
 */
const findAnchor = (
  rows: ReadonlyArray<string>,
  cursor: CursorState,
  fits: (row: number) => boolean
): number | undefined => {
  const hashes = rows.map(rowHash)
  const unique = (run: ReadonlyArray<string>, offset: number) => {
    if (run.every((hash) => hash === blankHash)) return undefined
    const hits: Array<number> = []
    for (let i = 0; i + run.length <= hashes.length; i++) {
      if (fits(i + offset) && run.every((hash, k) => hashes[i + k] === hash)) hits.push(i + offset)
    }
    return hits.length === 1 ? hits[0] : undefined
  }
  return unique(cursor.aboveHashes, cursor.aboveHashes.length) ?? unique([cursor.anchorHash, ...cursor.belowHashes], 0)
}

/** A cursor this server process issued for this pane on this socket, or the cursor-invalid error. */
export const verifyCursor = (token: string, paneId: string) =>
  Effect.gen(function*() {
    const secret = yield* ProcessSecret
    const pin = yield* SocketPin
    const state = decodeCursor(secret, token)
    if (typeof state === "string") return yield* new CursorInvalid({ reason: state })
    if (state.pane !== paneId || state.socket !== pin.resolvedPath) {
      return yield* new CursorInvalid({
        reason: `it was issued for pane ${state.pane}${
          state.socket !== pin.resolvedPath ? " on another tmux server" : ""
        }`
      })
    }
    return state
  })

/** The pane as one look read it, with the absolute row `rows[0]` is at. */
interface Read {
  readonly state: Effect.Success<ReturnType<typeof look>>["state"]
  readonly rows: ReadonlyArray<string>
  readonly firstRow: number
}

/** A read that settled the answer: `fresh`, the rows to return; `missed`, whether rows were lost before them. */
interface Settled extends Read {
  readonly fresh: ReadonlyArray<string>
  readonly missed: boolean
}

/** Why the pane cannot be followed, when it cannot: its process exited, or a respawn replaced the cursor's. */
const paneGone = (paneId: PaneId, state: Read["state"], previous: CursorState | undefined): PaneGone | undefined => {
  if (state.pane_dead) {
    return new PaneGone({
      pane: paneId,
      reason: "is dead (its process exited); capture_pane still shows what it left"
    })
  }
  if (previous !== undefined && previous.pid !== state.pane_pid) {
    return new PaneGone({
      pane: paneId,
      reason: `was respawned (process ${previous.pid} became ${state.pane_pid}); call capture_since without a cursor`
    })
  }
  return undefined
}

/** Without a cursor to follow (a first call, or a full-screen program then or now): the screen, as at the bottom. */
const readScreen = Effect.fnUntraced(function*(paneId: PaneId, aimed: number, first: Read) {
  let { state, rows, firstRow } = first
  if (aimed !== 0) {
    ;({ state, rows } = yield* look(paneId, 0))
    firstRow = state.history_size
  }
  const fresh = state.alternate_on ? rows : rows.slice(0, state.cursor_y + 1)
  return { state, rows, firstRow, fresh, missed: false } satisfies Settled
})

/**
 * The rows after the anchor found at index `start`, down to the cursor's row at index `end`: the
 * anchor and the rows that were below it, where they still are, were returned before.
 */
const rowsAfterAnchor = (rows: ReadonlyArray<string>, start: number, end: number, previous: CursorState) => {
  let index = start
  if (rowHash(rows[index] ?? "") === previous.anchorHash) index++
  for (const hash of previous.belowHashes) {
    if (index <= end && rowHash(rows[index] ?? "") === hash) index++
    else break
  }
  return rows.slice(index, end + 1)
}

/**
 * With a cursor on the normal screen: the rows written since its anchor, found where the content now
 * holds it; when the anchor is lost (history cleared, or trimmed past it), the screen, with `missed`.
 */
const followCursor = Effect.fnUntraced(function*(paneId: PaneId, previous: CursorState, first: Read) {
  let { state, rows, firstRow } = first
  const band = Math.max(1, Math.floor(state.history_limit / 10))
  const nearLimit = state.history_size >= state.history_limit - band ||
    previous.historySize >= state.history_limit - band
  const cleared = state.history_size < previous.historySize && state.pane_height <= previous.height
  let start: number | undefined
  if (!cleared && !nearLimit && previous.anchor >= 0) {
    // Read from the rows above the anchor: changed, they say the content moved (the screen
    // cleared, or history cleared and grown back), and the anchor is found by them instead.
    const above = previous.aboveHashes.length
    // Rows are asked for relative to the history's end: output between two reads moves that,
    // so the read is aimed again (a few times) until it starts where the rows above were.
    for (let tries = 0; tries < readAttempts && firstRow !== previous.anchor - above; tries++) {
      const from = previous.anchor - above - state.history_size
      ;({ state, rows } = yield* look(paneId, from))
      firstRow = state.history_size + from
      if (firstRow === previous.anchor - above) break
    }
    const stayed = previous.anchor - above === firstRow &&
      previous.aboveHashes.every((hash, k) => rowHash(rows[k] ?? "") === hash)
    start = stayed ? above : undefined
    if (!stayed) {
      ;({ state, rows } = yield* look(paneId, "-"))
      firstRow = 0
      start = findAnchor(rows, previous, (row) => row <= previous.anchor)
    }
  } else if (!cleared) {
    ;({ state, rows } = yield* look(paneId, "-"))
    firstRow = 0
    // tmux trims a tenth of the limit at a time: the anchor moved up by a multiple of that.
    const trim = Math.max(1, Math.floor(state.history_limit / 10))
    start = findAnchor(rows, previous, (row) => row <= previous.anchor && (previous.anchor - row) % trim === 0)
  }
  if (start === undefined) {
    ;({ state, rows } = yield* look(paneId, 0))
    const fresh = rows.slice(0, state.cursor_y + 1)
    return { state, rows, firstRow: state.history_size, fresh, missed: true } satisfies Settled
  }
  const end = state.history_size + state.cursor_y - firstRow
  return { state, rows, firstRow, fresh: rowsAfterAnchor(rows, start, end, previous), missed: false } satisfies Settled
})

/** The cursor to hand out: the row the pane's cursor is on, with the rows around it that find it again. */
const nextCursor = (secret: Buffer, socket: string, paneId: PaneId, { firstRow, rows, state }: Read): string => {
  const cursorIndex = state.history_size + state.cursor_y - firstRow
  return encodeCursor(secret, {
    pane: paneId,
    socket,
    pid: state.pane_pid,
    historySize: state.history_size,
    height: state.pane_height,
    anchor: state.history_size + state.cursor_y,
    anchorHash: rowHash(rows[cursorIndex] ?? ""),
    belowHashes: rows.slice(cursorIndex + 1).map(rowHash),
    aboveHashes: rows.slice(Math.max(0, cursorIndex - contextRows), cursorIndex).map(rowHash),
    alternate: state.alternate_on
  })
}

/** @category tools */
export const capture_since = defineTool(manifest.capture_since, {
  description: "Follow a pane's output: without cursor, the screen and a cursor; with " +
    "the last cursor, only rows written or rewritten since, and a new cursor.",
  input: Schema.Struct({
    pane_id: PaneId,
    cursor: Schema.optionalKey(
      Schema.String.check(Schema.isMaxLength(16_384)).annotate({ description: "the previous call's cursor" })
    ),
    ...boundFields
  }),
  output: Schema.Struct({
    pane_id: idVariable("pane_id"),
    cursor: Schema.String.annotate({ description: "pass it to the next call on this pane" }),
    output: Schema.String.annotate({ description: "the rows written since the cursor (the screen on a first call)" }),
    lines: Schema.Int.annotate({ description: "number of lines in output" }),
    lines_missed: usually(
      Schema.Boolean.annotate({
        description: "true: history was cleared or trimmed past the cursor; output is the screen"
      }),
      false,
      "no row was missed"
    ),
    alternate_screen: usually(
      Schema.Boolean.annotate({
        description: "true: a full-screen program has the alternate screen; output is its whole screen"
      }),
      false,
      "the normal screen"
    ),
    ...truncationFields
  }),
  run: (input) =>
    Effect.gen(function*() {
      const secret = yield* ProcessSecret
      const pin = yield* SocketPin
      const previous = input.cursor === undefined ? undefined : yield* verifyCursor(input.cursor, input.pane_id)
      // With a cursor, the first read is aimed where the rows above its anchor were, as the history
      // then stood: a pane whose history did not move since answers in this one invocation.
      const aimed = previous === undefined || previous.alternate || previous.anchor < 0
        ? 0
        : previous.anchor - previous.aboveHashes.length - previous.historySize
      const { state, rows } = yield* look(input.pane_id, aimed)
      const gone = paneGone(input.pane_id, state, previous)
      if (gone !== undefined) return yield* gone
      const first = { state, rows, firstRow: state.history_size + aimed }
      const read = previous === undefined || state.alternate_on || previous.alternate
        ? yield* readScreen(input.pane_id, aimed, first)
        : yield* followCursor(input.pane_id, previous, first)
      const cursor = nextCursor(secret, pin.resolvedPath, input.pane_id, read)
      const lines = [...read.fresh]
      if (!read.state.alternate_on && lines.length > 0 && lines.at(-1) === "") lines.pop()
      const bounded = tailBound(
        lines,
        input.max_lines ?? outputLimits.maxLines,
        input.max_bytes ?? outputLimits.maxBytes
      )
      return {
        pane_id: input.pane_id,
        cursor,
        output: bounded.lines.join("\n"),
        lines: bounded.lines.length,
        lines_missed: read.missed,
        alternate_screen: read.state.alternate_on,
        truncated_lines: bounded.truncatedLines,
        truncated_bytes: bounded.truncatedBytes
      }
    })
})
