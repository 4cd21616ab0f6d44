/**
 * The server's own tmux commands, outside every tool's authority: what the server does for itself on
 * the pinned socket (a recording's `pipe-pane`, for one). No tool is given it: it is not a tool
 * service, and no row's authority names it.
 */
import * as Context from "effect/Context"
import type { PinnedRunner } from "./Tmux.ts"

/** Runs the server's own commands on the pinned socket. @category services */
export class TmuxUpkeep extends Context.Service<TmuxUpkeep, { readonly run: PinnedRunner }>()(
  "libtmux-mcp/services/TmuxUpkeep"
) {}
