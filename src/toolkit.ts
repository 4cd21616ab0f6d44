/**
 * The selected tools as an `effect/ai` Toolkit, for agents that talk to their model through
 * `LanguageModel`: the same names, descriptions, parameter schemas and strict decoding as over MCP,
 * and handlers that call the same registry, so audit records and capability rules are the same. A
 * tool's failure reaches the model loop as that tool's typed failure.
 */
import { type Tool, Toolkit } from "effect/ai"
import * as AiTool from "effect/ai/Tool"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { decide, type EmbedOptions } from "./decide.ts"
import type { StartupError } from "./domain/StartupError.ts"
import { Registry } from "./layers/Registry.ts"
import * as Services from "./layers/Services.ts"
import { AuditUnavailable } from "./services/Audit.ts"
import {
  CursorInvalid,
  InputInvalid,
  PaneGone,
  PaneNotFound,
  PaneNotReady,
  RunIncomplete,
  RunUnreported,
  SelfInputRefused,
  SelfKillRefused,
  ServerNotRunning,
  SessionExists,
  SessionNotFound,
  SocketUnsafe,
  TmuxCommandFailed,
  TmuxNotFound,
  TmuxOutputTooLarge,
  TmuxTimedOut,
  WindowNotFound
} from "./services/errors.ts"
import { PatternInvalid, PatternTooCostly } from "./services/Regex.ts"

/** Every failure a tool can end in, as the schema of a tool's failure. @category schemas */
export const ToolFailure = Schema.Union([
  InputInvalid,
  ServerNotRunning,
  SessionNotFound,
  WindowNotFound,
  PaneNotFound,
  SessionExists,
  SelfKillRefused,
  SelfInputRefused,
  TmuxCommandFailed,
  TmuxNotFound,
  TmuxTimedOut,
  TmuxOutputTooLarge,
  SocketUnsafe,
  PaneNotReady,
  PaneGone,
  RunIncomplete,
  RunUnreported,
  CursorInvalid,
  PatternInvalid,
  PatternTooCostly,
  AuditUnavailable
])

/** A toolkit of this server's tools, and the layer of their handlers. @category models */
export interface TmuxToolkit {
  readonly toolkit: Toolkit.Toolkit<Record<string, Tool.Any>>
  readonly handlers: Layer.Layer<Tool.HandlersFor<Record<string, Tool.Any>>>
}

/** The toolkit of the registry's selected tools; its handlers call that registry. */
export const makeToolkit: Effect.Effect<TmuxToolkit, never, Registry> = Effect.gen(function*() {
  const registry = yield* Registry
  const tools = registry.selected.map((definition) =>
    AiTool.make(definition.row.name, {
      description: definition.description,
      parameters: definition.input,
      success: definition.output,
      failure: ToolFailure,
      // A failure goes back to the model as the tool's result, typed, so the agent loop can act on it.
      failureMode: "return"
    })
  )
  const toolkit = Toolkit.make(...tools) as unknown as Toolkit.Toolkit<Record<string, Tool.Any>>
  const call = (name: string) => (params: unknown) =>
    registry.call(name, params).pipe(
      // Only selected tools are in the toolkit: "not selected" cannot happen here.
      Effect.orDie,
      Effect.flatMap((outcome) =>
        outcome._tag === "Success" ? Effect.succeed(outcome.structured) : Effect.fail(outcome.error)
      )
    )
  const handlers = toolkit.toLayer(
    Object.fromEntries(registry.selected.map((definition) => [definition.row.name, call(definition.row.name)])) as never
  ) as Layer.Layer<Tool.HandlersFor<Record<string, Tool.Any>>>
  return { toolkit, handlers }
})

/**
 * The toolkit for an Effect agent, configured like the server (`env`, `argv`): startup runs as the
 * server's does, and the services live as long as the scope.
 * @category constructors
 */
export const toolkit = (options: EmbedOptions = {}): Effect.Effect<TmuxToolkit, StartupError, Scope.Scope> =>
  Effect.gen(function*() {
    const facts = yield* decide(options)
    const context = yield* Layer.build(Services.layer(facts, options.services))
    return yield* makeToolkit.pipe(Effect.provideContext(context))
  })
