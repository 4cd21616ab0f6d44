/**
 * `defineTool`: the one way to define a tool. Its type ties the definition to its manifest row:
 * the input's fields must be exactly the row's sink column, and the program may require only the
 * services that the row's effect and reach allow. A manage tool whose program could delete, or an
 * inspect tool whose program could type into a pane, does not compile.
 */
import type * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { Selection } from "../domain/selection.ts"
import type { ManifestRow } from "../manifest/index.ts"
import { mandatoryLines, openers, typesIntoPane } from "../manifest/index.ts"
import { Config } from "../services/Config.ts"
import type { ProgramError } from "../services/errors.ts"
import { PaneProcess } from "../services/PaneProcess.ts"
import { PaneReader } from "../services/PaneReader.ts"
import { Regex } from "../services/Regex.ts"
import { ServerPane } from "../services/ServerPane.ts"
import { ShellRuns } from "../services/ShellRuns.ts"
import { SocketPin } from "../services/SocketPin.ts"
import {
  authorityServices,
  PaneCommand,
  PaneInput,
  PaneRespawn,
  TmuxChange,
  TmuxDelete,
  TmuxObserve,
  TmuxSpawn
} from "../services/Tmux.ts"
import { type AuthorityName, type Form, grammar, reachesHost } from "../services/TmuxGrammar.ts"

/**
 * The one table of authority: the services every tool may use (none of them can change tmux
 * state), those each effect and each reach add, and those only an effect and a reach together add
 * (replacing a pane's process deletes it and runs a command in it). The compile-time rule
 * (`AllowedServices`) and the run-time provision (`allowedKeys`, which the registry provides) are
 * both read from it. What each service admits, down to the flag, is its grammar (TmuxGrammar.ts).
 */
export const authority = {
  common: [Config, SocketPin, ServerPane, TmuxObserve, Regex, PaneProcess, PaneReader],
  effect: { observe: [], change: [TmuxChange], delete: [TmuxDelete] },
  reach: {
    "none": [],
    "configured-process": [TmuxSpawn],
    "pane-input": [PaneInput],
    "pane-command": [PaneInput, PaneCommand, ShellRuns]
  },
  both: { delete: { "pane-command": [PaneRespawn] } }
} as const

type Keys = typeof authority
type IdentifierOf<K> = K extends ReadonlyArray<infer Key> ? Context.Service.Identifier<Key> : never
type Both = Keys["both"]
/** What an effect and a reach add together (distributes over the row's effects). */
type BothOf<E, Reach> = E extends keyof Both ? Reach extends keyof Both[E] ? Both[E][Reach] : never : never

/** Services any tool may use. @category models */
export type CommonServices = IdentifierOf<Keys["common"]>

/**
 * The services a row's authority allows: reading always; more only where its effect or reach says so.
 * @category models
 */
export type AllowedServices<R extends ManifestRow> =
  | CommonServices
  | IdentifierOf<Keys["effect"][R["effect"][number]]>
  | IdentifierOf<Keys["reach"][R["reach"]]>
  | IdentifierOf<BothOf<R["effect"][number], R["reach"]>>

/** Every service some tool may use. @category models */
export type ToolServices =
  | CommonServices
  | IdentifierOf<Keys["effect"][keyof Keys["effect"]]>
  | IdentifierOf<Keys["reach"][keyof Keys["reach"]]>
  | IdentifierOf<BothOf<keyof Both, keyof Keys["reach"]>>

type ToolKey = Context.Key<ToolServices, unknown>

/** Every tool service's key: what the registry takes away before it provides a row's own. */
export const toolKeys: ReadonlyArray<ToolKey> = [
  ...new Set<ToolKey>([
    ...authority.common,
    ...Object.values(authority.effect).flat(),
    ...Object.values(authority.reach).flat(),
    ...Object.values(authority.both).flatMap((byReach) => Object.values(byReach).flat())
  ])
]

/** The service keys a row's authority allows, for the registry to provide and nothing more. */
export const allowedKeys = (row: ManifestRow): ReadonlyArray<ToolKey> => {
  const effects: ReadonlyArray<keyof Keys["effect"]> = row.effect
  return [
    ...authority.common,
    ...effects.flatMap((effect): ReadonlyArray<ToolKey> => authority.effect[effect]),
    ...authority.reach[row.reach],
    ...effects.flatMap((effect): ReadonlyArray<ToolKey> =>
      (authority.both as Record<string, Partial<Record<string, ReadonlyArray<ToolKey>>>>)[effect]?.[row.reach] ?? []
    )
  ]
}

/** The authorities (by grammar name) a row's services include. */
export const authoritiesOf = (row: ManifestRow): ReadonlyArray<AuthorityName> => {
  const keys = allowedKeys(row)
  return (Object.keys(authorityServices) as ReadonlyArray<AuthorityName>).filter((name) =>
    keys.includes(authorityServices[name])
  )
}

/**
 * Whether a row can run a command on the host outside tmux's panes: read from what its
 * authorities' grammars admit (`reachesHost`), not from a column. `grammars` is for a test that
 * widens one to see the count move.
 */
export const reachesHostCommands = (
  row: ManifestRow,
  grammars: Readonly<Record<AuthorityName, Readonly<Record<string, Form>>>> = grammar
): boolean => authoritiesOf(row).some((name) => reachesHost(grammars[name]))

/**
 * A defined tool, its program erased to unknown input and output but not to wider authority.
 * `I` and `O` keep the decoded input and output types for typed in-process calls; `A` is the input
 * as a caller passes it (IDs as plain strings, branded once decoded).
 * @category models
 */
export interface ToolDefinition<R extends ManifestRow = ManifestRow, I = unknown, O = unknown, A = I> {
  readonly row: R
  /** The full description: the row's opener, the body, then any mandatory line. */
  readonly description: string
  readonly input: ToolSchema
  readonly output: ToolSchema
  readonly run: (input: unknown) => Effect.Effect<unknown, ProgramError, AllowedServices<R>>
  /** Types only; never set at run time. */
  readonly types?: { readonly input: I; readonly output: O; readonly arguments: A }
  /** The input schema under one selection, when it depends on it (the batch's enum of tools). */
  readonly specialize?: ((selection: Selection) => ToolSchema) | undefined
  /** What a hub does with this tool's calls besides sending them to their host. */
  readonly hub?: HubRules | undefined
}

/** What a hub knows from its own side when it passes a host's answer on (src/hub/Hub.ts). @category models */
export interface HubSide {
  /** The host the call went to. */
  readonly host: string
  /**
   * For a remote host, the command that waits for one of its runs, built from the hub's own host
   * table (undefined where its paths do not quote alike); undefined for the hub's own machine, whose
   * server built its own.
   */
  readonly remoteWatchCommand: ((runId: string, paneId: string) => string | undefined) | undefined
  /** Every host's state and what each offers, as the hub sees them. */
  readonly hosts: Effect.Effect<ReadonlyArray<Readonly<Record<string, unknown>>>>
}

/** A tool's rules for a hub, stated where the tool is defined. @category models */
export interface HubRules {
  /**
   * Whether a call whose session to its host dropped under it is sent once more on a new one.
   * Absent: a read of the inspect toolset is; any other call may have acted and is not.
   */
  readonly resend?: boolean
  /** The answer as the hub passes it on: the fields only the hub's side can vouch for, rebuilt. */
  readonly answer?: (
    answer: Readonly<Record<string, unknown>>,
    hub: HubSide
  ) => Effect.Effect<Readonly<Record<string, unknown>>>
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
  readonly run: (input: In["Type"]) => Effect.Effect<Out["Type"], ProgramError, Req>
  /** The input schema under one selection; it must decode to the same type as `input`. */
  readonly specialize?: (selection: Selection) => ToolSchema
  /** What a hub does with this tool's calls besides sending them to their host. */
  readonly hub?: HubRules
}

/** The authority services by name, so that a compile error can name the one a program may not require. */
interface AuthorityNames {
  TmuxChange: TmuxChange
  TmuxDelete: TmuxDelete
  TmuxSpawn: TmuxSpawn
  PaneInput: PaneInput
  PaneCommand: PaneCommand
  PaneRespawn: PaneRespawn
  ShellRuns: ShellRuns
}
type NamesOf<S> = { [K in keyof AuthorityNames]: AuthorityNames[K] extends S ? K : never }[keyof AuthorityNames]
type Named<S> = [NamesOf<S>] extends [never] ? "a service no tool is given" : NamesOf<S>
type Joined<T> = T extends readonly [infer H extends string, ...infer Rest]
  ? Rest extends readonly [] ? H : `${H}+${Joined<Rest>}`
  : never
type Article<T extends string> = T extends "inspect" | "execute" ? "an" : "a"

/**
 * Unconstrained when the program requires only what the row allows; otherwise a required property
 * whose type is the rule it breaks, so the compile error names it rather than a service mismatch.
 * `unknown` passes: TypeScript first checks the call with `Req` not yet inferred from a `run` that
 * takes the input (then `unknown`), and an Effect never requires `unknown` itself.
 */
type AuthorityRule<R extends ManifestRow, Req> = unknown extends Req ? unknown :
  [Exclude<Req, AllowedServices<R>>] extends [never] ? unknown :
  {
    readonly authority: `${Article<R["toolset"]>} ${R["toolset"]} tool may not require ${Named<
      Exclude<Req, AllowedServices<R>>
    >} (row ${R["name"]}: effect ${Joined<R["effect"]>}, reach ${R["reach"]})`
  }

/**
 * The boundary sentence of every tool the self-input guard covers (the registry applies the guard).
 * Short for the description budget: the refusal's message says when synchronize-panes is the reason.
 */
export const selfInputLine = "Refuses this MCP server's own pane."

/** Defines a tool against its manifest row. @category constructors */
export const defineTool = <const R extends ManifestRow, In extends ToolSchema, Out extends ToolSchema, Req>(
  row: R & CheckedRow<R, In>,
  spec: ToolSpec<In, Out, Req> & AuthorityRule<R, Req>
): ToolDefinition<R, In["Type"], Out["Type"], In["Encoded"]> => {
  const extra = (mandatoryLines as Record<string, string>)[row.name]
  const guard = typesIntoPane(row) ? ` ${selfInputLine}` : ""
  return {
    row,
    description: [`${openers[row.opener]} ${spec.description}${guard}`, ...(extra === undefined ? [] : [extra])].join(
      "\n\n"
    ),
    input: spec.input,
    output: spec.output,
    // AuthorityRule has checked that Req is within AllowedServices<R>.
    run: spec.run as (input: unknown) => Effect.Effect<unknown, ProgramError, AllowedServices<R>>,
    specialize: spec.specialize,
    hub: spec.hub
  }
}
