/**
 * `defineTool`: the one way to define a tool. Its type ties the definition to its manifest row:
 * the input's fields must be exactly the row's sink column, and the program may require only the
 * services that the row's effect and reach allow. A manage tool whose program could delete, or an
 * inspect tool whose program could type into a pane, does not compile.
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Selection } from "../domain/selection.ts"
import type { ManifestRow } from "../manifest/index.ts"
import { mandatoryLines, openers } from "../manifest/index.ts"
import type { ServerPane } from "../services/ServerPane.ts"
import type { Config } from "../services/Config.ts"
import type { ToolError } from "../services/errors.ts"
import type { PaneProcess } from "../services/PaneProcess.ts"
import type { PaneReader } from "../services/PaneReader.ts"
import type { Regex } from "../services/Regex.ts"
import type { ShellRuns } from "../services/ShellRuns.ts"
import type { SocketPin } from "../services/SocketPin.ts"
import type { PaneCommand, PaneInput, TmuxChange, TmuxDelete, TmuxObserve, TmuxSpawn } from "../services/Tmux.ts"

/** Services any tool may use: none of them can change tmux state. @category models */
export type CommonServices = Config | SocketPin | ServerPane | TmuxObserve | Regex | PaneProcess | PaneReader

/**
 * The services a row's authority allows: reading always; changing, spawning, deleting and pane
 * input only where the row's effect or reach says so.
 * @category models
 */
export type AllowedServices<R extends ManifestRow> =
  | CommonServices
  | ("change" extends R["effect"][number] ? TmuxChange : never)
  | ("delete" extends R["effect"][number] ? TmuxDelete : never)
  | (R["reach"] extends "configured-process" ? TmuxSpawn : never)
  | (R["reach"] extends "pane-input" | "pane-command" ? PaneInput : never)
  | (R["reach"] extends "pane-command" ? PaneCommand | ShellRuns : never)

/** Every service some tool may use. @category models */
export type ToolServices = CommonServices | TmuxChange | TmuxDelete | TmuxSpawn | PaneInput | PaneCommand | ShellRuns

/**
 * A defined tool, its program erased to unknown input and output but not to wider authority.
 * `I` and `O` keep the decoded input and output types for typed in-process calls.
 * @category models
 */
export interface ToolDefinition<R extends ManifestRow = ManifestRow, I = unknown, O = unknown> {
  readonly row: R
  /** The full description: the row's opener, the body, then any mandatory line. */
  readonly description: string
  readonly input: ToolSchema
  readonly output: ToolSchema
  readonly run: (input: unknown) => Effect.Effect<unknown, ToolError, AllowedServices<R>>
  /** Types only; never set at run time. */
  readonly types?: { readonly input: I; readonly output: O }
  /** The input schema under one selection, when it depends on it (the batch's enum of tools). */
  readonly specialize?: ((selection: Selection) => ToolSchema) | undefined
}

/** A schema that decodes and encodes without services: what every tool input and output is. @category models */
export type ToolSchema = Schema.Codec<unknown, unknown, never, never>

/**
 * The input of a tool that takes no arguments: an object with no properties. (An empty
 * `Schema.Struct` would accept any value that is not null.)
 * @category schemas
 */
export const NoInput = Schema.Record(Schema.String, Schema.Never)

// An index signature (the no-argument input) names no fields.
type FieldsOf<T> = string extends keyof T ? never : keyof T
type SameKeys<A, B> = [FieldsOf<A>] extends [keyof B] ? [keyof B] extends [FieldsOf<A>] ? true : false : false

/** Resolves to the row when its sink column names exactly the input's fields, else to an explanation. */
type CheckedRow<R extends ManifestRow, In extends ToolSchema> = SameKeys<In["Type"], R["sinks"]> extends true ? R
  : { readonly sinks: "the row's sink column must name exactly the input's fields" }

/** The parts of a tool that the row does not already say. @category models */
export interface ToolSpec<In extends ToolSchema, Out extends ToolSchema, Req> {
  /** What it does, when to use it instead of a sibling, hazards, boundary. The opener is added. */
  readonly description: string
  readonly input: In
  readonly output: Out
  readonly run: (input: In["Type"]) => Effect.Effect<Out["Type"], ToolError, Req>
  /** The input schema under one selection; it must decode to the same type as `input`. */
  readonly specialize?: (selection: Selection) => ToolSchema
}

/** Defines a tool against its manifest row. @category constructors */
export const defineTool = <const R extends ManifestRow, In extends ToolSchema, Out extends ToolSchema, Req extends AllowedServices<R>>(
  row: R & CheckedRow<R, In>,
  spec: ToolSpec<In, Out, Req>
): ToolDefinition<R, In["Type"], Out["Type"]> => {
  const extra = (mandatoryLines as Record<string, string>)[row.name]
  return {
    row,
    description: [`${openers[row.opener]} ${spec.description}`, ...(extra === undefined ? [] : [extra])].join("\n\n"),
    input: spec.input,
    output: spec.output,
    run: spec.run as (input: unknown) => Effect.Effect<unknown, ToolError, Req>,
    specialize: spec.specialize
  }
}
