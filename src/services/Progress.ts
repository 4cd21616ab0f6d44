/**
 * Progress reports of a long-running tool to the client that asked for
 * them. Outside MCP (or without a progress token) reports go nowhere.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/** The shape of a progress reporter. @category models */
export interface ProgressShape {
  progress(progress: number, total: number, message: string): Effect.Effect<void>
}

/** Progress of a waiting tool; defaults to reporting nothing. @category services */
export const Progress: Context.Reference<ProgressShape> = Context.Reference<ProgressShape>(
  "libtmux-mcp/services/Progress",
  { defaultValue: () => ({ progress: () => Effect.void }) }
)
