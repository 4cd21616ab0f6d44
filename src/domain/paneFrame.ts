/**
 * What the pane view (an MCP App) is sent each poll: the whole frame when anything in it changed
 * since the digest the view holds, or only the digest when nothing did, so an idle view costs a few
 * bytes a second.
 */
import { createHash } from "node:crypto"
import { cellsOf, sliceCells } from "./cells.ts"
import type { BlockKind } from "./keyboard.ts"
import { styledRows, type StyleRun } from "./styledRows.ts"

/** The run in front of the pane, as its records in tmux and the kernel show it. @category models */
export interface FrameRun {
  readonly run_id: string
  readonly state: "working" | "blocked" | "ended"
  /** The command's first characters, as the run's record keeps them (absent once the run is collected). */
  readonly command?: string
  readonly exit_status?: number | null
  readonly blocked_by?: { readonly kind: BlockKind; readonly program: string }
}

/** Another pane of the same session, for the view's picker. @category models */
export interface FramePane {
  readonly pane_id: string
  readonly title: string
  readonly command: string
  /** Present on the window's active pane. */
  readonly active?: true
}

/** One full frame, without its digest. @category models */
export interface Frame {
  readonly pane_id: string
  readonly session_id: string
  readonly width: number
  readonly height: number
  readonly title: string
  /** The program tmux sees in front (`pane_current_command`). */
  readonly command: string
  readonly alternate_on: boolean
  /** The cursor's row, and its index in that row's text (UTF-16 units: what the view slices by). */
  readonly cursor: { readonly row: number; readonly index: number; readonly visible: boolean }
  readonly rows: ReadonlyArray<string>
  /** Absent when every cell has the default style. */
  readonly styles?: ReadonlyArray<readonly [row: number, ...StyleRun]>
  readonly run?: FrameRun
  readonly panes: ReadonlyArray<FramePane>
}

/** What tmux says of the pane, and its screen as `capture-pane -p -e` prints it. @category models */
export interface FrameSource {
  readonly pane_id: string
  readonly session_id: string
  readonly pane_width: number
  readonly pane_height: number
  readonly pane_title: string
  readonly pane_current_command: string
  readonly alternate_on: boolean
  readonly cursor_x: number
  readonly cursor_y: number
  readonly cursor_flag: boolean
  readonly captured: ReadonlyArray<string>
}

/** The digest's length in hex characters: a change detector, not a secret. */
export const digestLength = 12

/**
 * The frame made from one read, without its run (read after, from its plain rows): rows cut to the
 * pane's height, the cursor's row long enough to hold it.
 */
export const frameOf = (source: FrameSource, panes: ReadonlyArray<FramePane>): Frame => {
  const { rows, styles } = styledRows(source.captured.slice(0, source.pane_height))
  const cursorRow = rows[source.cursor_y] ?? ""
  // A cursor right of the row's last printed cell stands on spaces the capture left out.
  const padded = cursorRow + " ".repeat(Math.max(0, source.cursor_x - cellsOf(cursorRow)))
  const shown = rows.map((row, index) => index === source.cursor_y ? padded : row)
  while (shown.length <= source.cursor_y) shown.push(shown.length === source.cursor_y ? padded : "")
  return {
    pane_id: source.pane_id,
    session_id: source.session_id,
    width: source.pane_width,
    height: source.pane_height,
    title: source.pane_title,
    command: source.pane_current_command,
    alternate_on: source.alternate_on,
    cursor: {
      row: source.cursor_y,
      index: sliceCells(padded, source.cursor_x).length,
      visible: source.cursor_flag
    },
    rows: shown,
    ...(styles.length === 0 ? {} : { styles }),
    panes
  }
}

/** A frame's digest: equal frames, equal digests. */
export const frameDigest = (frame: Frame): string =>
  createHash("sha256").update(JSON.stringify(frame)).digest("hex").slice(0, digestLength)
