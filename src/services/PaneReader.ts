/**
 * A read of one pane's recent rows and state, for logic that waits and polls: the live
 * implementation asks tmux; tests script it, so deadlines and polling run under TestClock. A read
 * is a tmux client (a few milliseconds of processor time with the server's share): a pacer says
 * when one can find something new, so a wait on a quiet pane costs next to nothing.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { PaneId } from "../domain/ids.ts"
import type { JoinedLine } from "../domain/rows.ts"
import type { PaneNotFound, TmuxError } from "./errors.ts"

/** One look at a pane. @category models */
export interface PaneView {
  readonly pid: number
  readonly dead: boolean
  readonly alternate: boolean
  readonly historySize: number
  readonly cursorY: number
  /** The tmux server's process (`#{pid}`), when read. */
  readonly serverPid?: number
  /** Absolute row (history size + row) of `rows[0]`. */
  readonly firstRow: number
  /** Rows from the requested absolute row (or the cursor row) down to the last written row. */
  readonly rows: ReadonlyArray<string>
  /**
   * With a joined read: the rows as lines, joined where the pane wrapped them (as `capture-pane -J`
   * joins them), in order, each with how many of `rows` it spans; the first may have begun above them.
   */
  readonly lines?: ReadonlyArray<JoinedLine>
}

/** Paces the reads of one waiting loop at one pane. @category models */
export interface Pacer {
  /** Whether to read now: something may have changed since the last read (the first call is always due). */
  readonly due: Effect.Effect<boolean>
  /** Records a read and what it saw (`key` equal to the last read's: nothing changed). */
  readonly looked: (key: string) => Effect.Effect<void>
  /** How long to sleep before asking `due` again, in milliseconds. */
  readonly tickMs: Effect.Effect<number>
}

/** A pacer that is always due, every `tickMs`: a plain poll. @category constructors */
export const everyTick = (tickMs: number): Pacer => ({
  due: Effect.succeed(true),
  looked: () => Effect.void,
  tickMs: Effect.succeed(tickMs)
})

/** Reads pane views. @category services */
export class PaneReader extends Context.Service<PaneReader, {
  /**
   * Rows from absolute row `from` (the cursor row when omitted) to the last written row; `joined`
   * reads their lines too (a second capture of the rows).
   */
  read(
    paneId: PaneId,
    from?: number,
    options?: { readonly joined: boolean }
  ): Effect.Effect<PaneView, PaneNotFound | TmuxError>
  /** A pacer for a loop that reads the pane `view` came from; without one, every tick reads. */
  readonly pacer?: (view: PaneView) => Effect.Effect<Pacer>
}>()("libtmux-mcp/services/PaneReader") {}
