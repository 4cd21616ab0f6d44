/**
 * Where this server process itself runs: the panes on the pinned socket that contain it. The self
 * guards (no kill of, no input into, the caller's pane) and the `is_caller` marks read it.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { TmuxError } from "./errors.ts"

/** What `TMUX` and `TMUX_PANE` said at startup. MCP clients often drop both. @category models */
export interface PaneFromEnvironment {
  /** The pane ID from `TMUX_PANE`, e.g. `%3`. */
  readonly paneId: string | undefined
  /** The socket path from `TMUX`, resolved with realpath where possible. */
  readonly socketPath: string | undefined
  /** Whether that socket is the pinned one: only then can the tools reach that pane. */
  readonly onPinnedSocket: boolean
}

/** The tmux panes (if any) that contain this process. @category services */
export class ServerPane extends Context.Service<ServerPane, {
  /**
   * The IDs of the panes on the pinned socket that contain this process: usually one, none outside
   * tmux or on another socket. Found on first need, then kept.
   */
  readonly panes: Effect.Effect<ReadonlyArray<string>, TmuxError>
  /**
   * Runs `effect` (a guarded kill, from its check to its act, or a move of panes between windows
   * or sessions) after every other one this service was given has finished.
   */
  readonly oneAtATime: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}>()("libtmux-mcp/services/ServerPane") {}
