/**
 * A read of one pane's recent rows and state, for logic that waits and polls: the live
 * implementation asks tmux; tests script it, so deadlines and polling run under TestClock.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { PaneNotFound, TmuxError } from "./errors.ts"

/** One look at a pane. @category models */
export interface PaneView {
  readonly pid: number
  readonly dead: boolean
  readonly alternate: boolean
  readonly historySize: number
  readonly cursorY: number
  /** Absolute row (history size + row) of `rows[0]`. */
  readonly firstRow: number
  /** Rows from the requested absolute row (or the cursor row) down to the last written row. */
  readonly rows: ReadonlyArray<string>
}

/** Reads pane views. @category services */
export class PaneReader extends Context.Service<PaneReader, {
  /** Rows from absolute row `from` (the cursor row when omitted) to the last written row. */
  read(paneId: string, from?: number): Effect.Effect<PaneView, PaneNotFound | TmuxError>
}>()("libtmux-mcp/services/PaneReader") {}
