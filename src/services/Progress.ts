/**
 * Progress reports of a long-running tool to the client that asked for
 * them. Outside MCP (or without a progress token) reports go nowhere.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/**
 * The `_meta` key of a run_shell_command progress report that names its run: a hub reads the ID
 * there (never from the text) to point a lost call at its run.
 */
export const runIdMetaKey = "com.git-pull.libtmux-mcp/run-id"

/** The shape of a progress reporter; `meta` goes into the report's `_meta`. @category models */
export interface ProgressShape {
  progress(
    progress: number,
    total: number,
    message: string,
    meta?: Readonly<Record<string, string>>
  ): Effect.Effect<void>
}

/** Where a call's progress reports go on the wire (a client's progress token, a hub's relay). @category models */
export type ProgressSink = (
  progress: number,
  total: number,
  message: string,
  meta?: Readonly<Record<string, string>>
) => Promise<void>

/** Progress of a waiting tool; defaults to reporting nothing. @category services */
export const Progress: Context.Reference<ProgressShape> = Context.Reference<ProgressShape>(
  "libtmux-mcp/services/Progress",
  { defaultValue: () => ({ progress: () => Effect.void }) }
)
