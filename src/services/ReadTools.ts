/**
 * The read tools as call_read_tools_batch reaches them: only the batch-eligible inspect tools of
 * the current selection, each decoded, run and audited as its own call. Offered by the registry.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/** How one nested call ended. @category models */
export type NestedOutcome =
  | { readonly ok: true; readonly structured: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly message: string; readonly tag: string }

/** The batch's view of the read tools. @category services */
export interface ReadToolsShape {
  call(name: string, args: unknown): Effect.Effect<NestedOutcome>
}

/** Read tools for the batch; outside a registry it offers none. @category services */
export const ReadTools: Context.Reference<ReadToolsShape> = Context.Reference<ReadToolsShape>(
  "libtmux-mcp/services/ReadTools",
  {
    defaultValue: () => ({
      call: () => Effect.succeed({ ok: false, message: "no read tools here", tag: "ToolNotSelected" })
    })
  }
)
