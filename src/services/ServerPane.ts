/**
 * Where this server process itself runs, read from `TMUX` and `TMUX_PANE`: the self-kill guards
 * and the instructions use it. Outside tmux both fields are absent.
 */
import * as Context from "effect/Context"

/** The tmux pane (if any) that contains this process. @category services */
export class ServerPane extends Context.Service<ServerPane, {
  /** The pane ID from `TMUX_PANE`, e.g. `%3`. */
  readonly paneId: string | undefined
  /** The socket path from `TMUX`, resolved with realpath where possible. */
  readonly socketPath: string | undefined
  /** Whether that socket is the pinned one: only then can the tools reach the caller's pane. */
  readonly onPinnedSocket: boolean
}>()("libtmux-mcp/services/ServerPane") {}
