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
import { Registry } from "./dispatch/Registry.ts"
import * as Services from "./dispatch/Services.ts"
import type { StartupError } from "./domain/StartupError.ts"
import { type ToolName, toolNames } from "./manifest/index.ts"
import { AuditUnavailable } from "./services/Audit.ts"
import {
  CursorInvalid,
  InputInvalid,
  PaneGone,
  PaneNotFound,
  PaneNotReady,
  RunCollected,
  RunIncomplete,
  RunUnreported,
  RunWaitFailed,
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
import type { registry } from "./tools/index.ts"

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
  RunWaitFailed,
  RunCollected,
  CursorInvalid,
  PatternInvalid,
  PatternTooCostly,
  AuditUnavailable
])

type Definition<K extends ToolName> = NonNullable<(typeof registry)[K]["types"]>

/** One tool as the model sees it: its name, its decoded input and output, and every failure. @category models */
export type TmuxTool<K extends ToolName> = Tool.Tool<K, {
  readonly parameters: Schema.Codec<Definition<K>["input"], unknown>
  readonly success: Schema.Codec<Definition<K>["output"], unknown>
  readonly failure: typeof ToolFailure
  readonly failureMode: "return"
}>

/**
 * Every tool by name, with its types. At run time a toolkit holds only the selected ones (`selected`
 * names them); the model is offered only those, so a handler is never asked for another.
 * @category models
 */
export type TmuxTools = { readonly [K in ToolName]: TmuxTool<K> }

/** A toolkit of this server's tools, and the layer of their handlers. @category models */
export interface TmuxToolkit {
  readonly toolkit: Toolkit.Toolkit<TmuxTools>
  readonly handlers: Layer.Layer<Tool.HandlersFor<TmuxTools>>
  /** The tools this toolkit holds: the selection startup decided. */
  readonly selected: ReadonlyArray<ToolName>
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
  // The types come from the registry's definitions, the values from the same definitions.
  const toolkit = Toolkit.make(...tools) as unknown as Toolkit.Toolkit<TmuxTools>
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
  ) as Layer.Layer<Tool.HandlersFor<TmuxTools>>
  return {
    toolkit,
    handlers,
    selected: toolNames.filter((name) => registry.selected.some((definition) => definition.row.name === name))
  }
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
