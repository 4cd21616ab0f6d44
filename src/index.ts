/**
 * The package entry for an agent host written with Effect: the same tools, in process, under the
 * same selection, audit and capability rules as the MCP server, with no MCP hop.
 *
 * ```ts
 * import * as Effect from "effect/Effect"
 * import { callTool, layer } from "libtmux-mcp"
 *
 * const program = Effect.gen(function*() {
 *   const created = yield* callTool("create_session", { session_name: "work" })
 *   return yield* callTool("list_panes", { session_id: created.session_id })
 * })
 * Effect.runPromise(
 *   program.pipe(Effect.provide(layer({ env: { ...process.env, LIBTMUX_TOOLSETS: "inspect,execute" } })))
 * )
 * ```
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Services from "./composition.ts"
import { decide, type EmbedOptions } from "./decide.ts"
import { type CallMeta, Registry, type ToolNotSelected } from "./dispatch/Registry.ts"
import type { StartupError } from "./domain/StartupError.ts"
import type { CallError } from "./services/errors.ts"
import type { registry } from "./tools/index.ts"

export { Registry, ToolNotSelected } from "./dispatch/Registry.ts"
export { StartupError } from "./domain/StartupError.ts"
export { Audit, AuditUnavailable } from "./services/Audit.ts"
export * from "./services/errors.ts"
export type { StartupFacts } from "./startup/Startup.ts"
export { capabilitiesDocument, instructions } from "./wire/Disclosure.ts"
// The service tags and their live layers, for a host that replaces one or builds its own composition.
export * as Services from "./composition.ts"
export { decide, type EmbedOptions } from "./decide.ts"
export * as AuditLive from "./layers/AuditLive.ts"
export * as PaneProcessLive from "./layers/PaneProcessLive.ts"
export * as PaneReaderLive from "./layers/PaneReaderLive.ts"
export * as RegexLive from "./layers/RegexLive.ts"
export * as ServerLogLive from "./layers/ServerLogLive.ts"
export * as ServerPaneLive from "./layers/ServerPaneLive.ts"
export * as ShellRunsLive from "./layers/ShellRunsLive.ts"
export * as TmuxLive from "./layers/TmuxLive.ts"
export { manifest, type ToolName } from "./manifest/index.ts"
export { Config } from "./services/Config.ts"
export { PaneProcess } from "./services/PaneProcess.ts"
export { PaneReader } from "./services/PaneReader.ts"
export { Regex } from "./services/Regex.ts"
export { ServerLog } from "./services/ServerLog.ts"
export { ServerPane } from "./services/ServerPane.ts"
export { ShellRuns } from "./services/ShellRuns.ts"
export { SocketPin } from "./services/SocketPin.ts"
export { PaneCommand, PaneInput, TmuxChange, TmuxDelete, TmuxObserve, TmuxSpawn } from "./services/Tmux.ts"
export { CallFailure, makeToolkit, type TmuxToolkit, ToolFailure, toolkit } from "./toolkit.ts"
export { version } from "./version.ts"

/** Names of the tools this build has. @category models */
export type RegisteredTool = keyof typeof registry
/** The input of a tool as a caller passes it (IDs as plain strings; decoded strictly by the call). @category models */
export type InputOf<K extends RegisteredTool> = NonNullable<typeof registry[K]["types"]>["arguments"]
/** The output of a tool. @category models */
export type OutputOf<K extends RegisteredTool> = NonNullable<typeof registry[K]["types"]>["output"]

/** The registry over the configured selection, with its live services. @category layers */
export const layer = (options: EmbedOptions = {}): Layer.Layer<Registry, StartupError> =>
  Layer.unwrap(Effect.map(decide(options), (facts) => Services.layer(facts, options.services)))

/**
 * Calls a tool in process. Input is decoded strictly, as over MCP; a failure is the tool's typed
 * error, and a tool outside the selection fails with `ToolNotSelected`.
 * @category constructors
 */
export const callTool = <K extends RegisteredTool>(
  name: K,
  input: InputOf<K>,
  meta?: CallMeta
): Effect.Effect<OutputOf<K>, CallError | ToolNotSelected, Registry> =>
  Registry.use((registry) => registry.call(name, input, meta)).pipe(
    Effect.flatMap((outcome) =>
      outcome._tag === "Success" ? Effect.succeed(outcome.structured as OutputOf<K>) : Effect.fail(outcome.error)
    )
  )
