/**
 * The selected tools as an `effect/ai` Toolkit, for agents that talk to their model through
 * `LanguageModel`: the same names, descriptions, parameter schemas and strict decoding as over MCP,
 * and handlers that call the same registry, so audit records and capability rules are the same. A
 * tool's failure reaches the model loop as that tool's typed failure (or, configured as a hub, the hub's).
 */
import { type Tool, Toolkit } from "effect/ai"
import * as AiTool from "effect/ai/Tool"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Services from "./composition.ts"
import { decide, type EmbedOptions } from "./decide.ts"
import { Registry } from "./dispatch/Registry.ts"
import type { StartupError } from "./domain/StartupError.ts"
import { type ToolName, toolNames } from "./manifest/index.ts"
import { CallFailure } from "./services/errors.ts"
import type { registry } from "./tools/index.ts"

export { CallFailure, ToolFailure } from "./services/errors.ts"

type Definition<K extends ToolName> = NonNullable<(typeof registry)[K]["types"]>

/** One tool as the model sees it: its name, its decoded input and output, and every failure. @category models */
export type TmuxTool<K extends ToolName> = Tool.Tool<K, {
  readonly parameters: Schema.Codec<Definition<K>["input"], unknown>
  readonly success: Schema.Codec<Definition<K>["output"], unknown>
  readonly failure: typeof CallFailure
  readonly failureMode: "return"
}>

/**
 * Every tool by name, with its types. At run time a toolkit holds only the selected ones (`selected`
 * names them); the model is offered only those, so a handler is never asked for another.
 * @category models
 */
export type TmuxTools = { readonly [K in ToolName]: TmuxTool<K> }

/** A handler for every tool, as the toolkit takes them. @category models */
export type TmuxHandlers = Toolkit.HandlersFrom<TmuxTools>

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
      failure: CallFailure,
      // A failure goes back to the model as the tool's result, typed, so the agent loop can act on it.
      failureMode: "return"
    })
  )
  const call = (name: string) => (params: unknown) =>
    registry.call(name, params).pipe(
      // Only selected tools are in the toolkit: "not selected" cannot happen here.
      Effect.orDie,
      Effect.flatMap((outcome) =>
        outcome._tag === "Success" ? Effect.succeed(outcome.structured) : Effect.fail(outcome.error)
      )
    )
  // The one cast: the selected definitions' tools and handlers, typed by name as the registry record's
  // (values and types come from the same definitions; test/types/pass/toolkit-types.ts pins the types).
  const typed = {
    tools,
    handlers: Object.fromEntries(
      registry.selected.map((definition) => [definition.row.name, call(definition.row.name)])
    )
  } as unknown as { readonly tools: ReadonlyArray<TmuxTools[ToolName]>; readonly handlers: TmuxHandlers }
  const toolkit: Toolkit.Toolkit<TmuxTools> = Toolkit.make(...typed.tools)
  const handlers = toolkit.toLayer(typed.handlers)
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
