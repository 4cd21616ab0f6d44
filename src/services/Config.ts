/**
 * The startup configuration, as a service: parsed once, frozen for the life of the process.
 */
import * as Context from "effect/Context"
import type { ServerConfig } from "../domain/config.ts"
import type { Selection } from "../domain/selection.ts"

/** The frozen configuration and the effective tool selection. @category services */
export class Config extends Context.Service<Config, {
  readonly config: ServerConfig
  readonly selection: Selection
  readonly version: string
  /** The tmux binary as an absolute path, for commands typed into panes. */
  readonly tmuxPath: string
  /**
   * The words that run this installation (Node and the bin, or the single executable), when this
   * process is the libtmux-mcp command; absent in a host that embeds the server.
   */
  readonly entry?: ReadonlyArray<string>
}>()("libtmux-mcp/services/Config") {}
