/**
 * Per-call context a long-running tool may use: progress reports to the client that asked for
 * them. Outside MCP (or without a progress token) reports go nowhere.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/** The shape of the per-call context. @category models */
export interface CallContextShape {
  progress(progress: number, total: number, message: string): Effect.Effect<void>
}

/** Progress of a waiting tool; defaults to reporting nothing. @category services */
export const CallContext: Context.Reference<CallContextShape> = Context.Reference<CallContextShape>(
  "libtmux-mcp/services/CallContext",
  { defaultValue: () => ({ progress: () => Effect.void }) }
)
