/**
 * Dispatch: the cross-cutting work every call gets from its manifest row, so tool programs never
 * repeat it. Selection check, strict decoding, the input guard, the program, output encoding,
 * audit. The MCP layer and the embedding layer both call through here, under the same selection.
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { identity } from "effect/Function"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { boundProblem, brokenBound } from "../domain/argumentBounds.ts"
import { isPaneId } from "../domain/ids.ts"
import {
  type Acceptance,
  summarizeArguments,
  summarizeBatchArguments,
  toolNameOf,
  unreadSummary
} from "../domain/redact.ts"
import type { Selection } from "../domain/selection.ts"
import { type ManifestRow, typesIntoPane } from "../manifest/index.ts"
import { refuseOwnInput } from "../programs/guard.ts"
import { withoutUsual } from "../programs/usual.ts"
import { Audit } from "../services/Audit.ts"
import { Config } from "../services/Config.ts"
import { type CallError, InputInvalid } from "../services/errors.ts"
import { LinkGate } from "../services/LinkGate.ts"
import { ProcessSecret } from "../services/ProcessSecret.ts"
import { Progress, type ProgressShape, type ProgressSink } from "../services/Progress.ts"
import { ReadTools } from "../services/ReadTools.ts"
import { Recorder, recordingOff } from "../services/Recorder.ts"
import { TaskCall, type TaskCallShape } from "../services/TaskCall.ts"
import { allowedKeys, type ToolDefinition, toolKeys, type ToolServices } from "../tools/define.ts"
import { definitionOf } from "../tools/index.ts"
import {
  decodeArguments,
  decodeProblem,
  isToolName,
  sinksOf,
  spanAttributes,
  targetsIn,
  targetsOf
} from "./arguments.ts"
import { recordingOf, runEndOf } from "./callMarks.ts"

/** A call to a tool outside the effective selection. Acts on nothing. @category errors */
export class ToolNotSelected extends Schema.TaggedError<ToolNotSelected>()("ToolNotSelected", {
  name: Schema.String,
  known: Schema.Boolean
}) {
  override get message() {
    return this.known
      ? `tool ${this.name} is not in this server's selection (see ` +
        "LIBTMUX_TOOLSETS, LIBTMUX_TOOLS and LIBTMUX_EXCLUDE_TOOLS)"
      : `unknown tool ${this.name}; call tools/list for this server's tools`
  }
}

/** How one call ended. @category models */
export type CallOutcome =
  | { readonly _tag: "Success"; readonly structured: Readonly<Record<string, unknown>> }
  | { readonly _tag: "Failure"; readonly error: CallError }

/** Identifies a call for the audit record, and carries its progress channel. @category models */
export interface CallMeta {
  readonly requestId?: string | number | undefined
  /** The client's name and version, from its initialize request. */
  readonly clientId?: string | undefined
  /** Where a waiting tool reports progress; absent when the client asked for none. */
  readonly progress?: ProgressSink | undefined
  /**
   * Fields a caller adds to the call's intent record: the host a hub routes it to, the call ID a hub
   * forwarding it sent (so that the two records join), the task whose watcher made it (its pane and
   * run, never its nonce).
   */
  readonly recorded?: { readonly host?: string; readonly hub_call?: string; readonly task?: string } | undefined
  /**
   * Where the decoded call goes instead of this server's program (a hub sends it to another server);
   * it is decoded, audited and answered as any call.
   */
  readonly via?: Act | undefined
  /** The MCP task side of a run_shell_command call (wire/Tasks.ts); absent for every other call. */
  readonly task?: TaskCallShape | undefined
}

/** The selected tools and the way to call them. @category services */
export class Registry extends Context.Service<Registry, {
  /** The selected tools, in manifest order, with their inputs specialized to the selection. */
  readonly selected: ReadonlyArray<ToolDefinition>
  /** What call_read_tools_batch may call under this selection. */
  readonly nestedAuthority: ReadonlyArray<string>
  call(name: string, args: unknown, meta?: CallMeta): Effect.Effect<CallOutcome, ToolNotSelected>
}>()("libtmux-mcp/dispatch/Registry") {}

/** What a call does with its decoded arguments: the tool's program here, or sending it elsewhere. @category models */
export type Act = (
  definition: ToolDefinition,
  decoded: Exit.Exit<unknown, InputInvalid>
) => Effect.Effect<Record<string, unknown>, CallError, ToolServices>

/**
 * Runs a row's program with only the services its authority allows (the table `defineTool` types
 * against): every tool service the fiber already holds is taken away first, so a program that
 * escapes its type (a cast) finds nothing more and dies on the missing service. Everything else in
 * the context (clock, logger, Progress, ReadTools) stays.
 */
export const provideAllowed = (row: ManifestRow, services: Context.Context<ToolServices>) => {
  const allowed = Context.pick(...allowedKeys(row))(services)
  const withoutTools = Context.omit(...toolKeys)
  // Typed as every tool service because a definition's `run` is typed per row, not per call.
  return <A, E>(effect: Effect.Effect<A, E, ToolServices>): Effect.Effect<A, E> =>
    Effect.updateContext(
      effect,
      (current: Context.Context<never>) =>
        Context.merge(withoutTools(current), allowed) as Context.Context<ToolServices>
    )
}

/** What recording a call needs: where records go, the secret that keys their digests, and the panes' recorder. */
interface Recording {
  readonly audit: Audit["Service"]
  readonly secret: Buffer
  readonly recorder: Recorder["Service"]
}

/** The selected tools, each with its input specialized to the selection when its definition asks. */
const selectedOf = (selection: Selection): ReadonlyArray<ToolDefinition> =>
  selection.tools.map((name) => {
    const definition = definitionOf(name)!
    return definition.specialize === undefined
      ? definition
      : { ...definition, input: definition.specialize(selection) }
  })

/** Runs a call here: the input guard, the tool's program, the output encoded. */
const execute = Effect.fn("Registry.execute")(
  function*(definition: ToolDefinition, decoded: Exit.Exit<unknown, InputInvalid>) {
    const input = yield* decoded
    // Security: input into the pane that runs this server would reach its own client.
    if (typesIntoPane(definition.row)) {
      yield* refuseOwnInput(definition.row.name, targetsIn(input).filter(isPaneId))
    }
    // Programs object to their arguments without naming themselves: the row names the tool.
    const output = yield* Effect.catchTag(
      definition.run(input),
      "ArgumentProblem",
      ({ detail }) => Effect.fail(new InputInvalid({ tool: definition.row.name, detail }))
    )
    // An output that does not fit its own schema is a bug of ours, not the caller's. Fields at
    // their usual value say nothing: they are left out (programs/usual.ts).
    return (yield* Effect.orDie(
      Schema.encodeUnknownEffect(definition.output)(withoutUsual(definition.output, output))
    )) as Record<string, unknown>
  }
)

/**
 * The arguments as the record shows them; a batch's operations are redacted by the sinks
 * of the tools they name.
 */
const summaryOf = (secret: Buffer, row: ToolDefinition["row"], acceptance: Acceptance, args: unknown): unknown =>
  row.callsTools
    ? summarizeBatchArguments(secret, acceptance, sinksOf, isToolName, args)
    : summarizeArguments(secret, acceptance, args)

/**
 * A call's arguments as dispatch reads them: over the bounds no tool's schema exceeds, refused
 * unread (nothing walks them: not the decoder, the targets or the summary); else decoded, with
 * what the schema accepted.
 */
const readArguments = (secret: Buffer, definition: ToolDefinition, args: unknown) => {
  const broken = brokenBound(args)
  if (broken !== undefined) {
    return Effect.succeed({
      decoded: Exit.fail(new InputInvalid({ tool: definition.row.name, detail: boundProblem(broken) })),
      targets: [],
      summary: unreadSummary(broken)
    })
  }
  return Effect.map(decodeArguments(definition.input, definition.row.sinks, args), ({ acceptance, exit }) => ({
    decoded: Exit.mapError(
      exit,
      (error) => new InputInvalid({ tool: definition.row.name, detail: decodeProblem(definition, error.message) })
    ),
    targets: targetsIn(args),
    summary: summaryOf(secret, definition.row, acceptance, args)
  }))
}

/**
 * Runs one call, written ahead: the intent record (row facts, the targets the arguments name,
 * redacted arguments) before anything acts, and the call does not run when it cannot be
 * written; then the outcome record, best effort. `parent` marks a batch operation.
 */
const audited = <R>(
  { audit, recorder, secret }: Recording,
  definition: ToolDefinition,
  args: unknown,
  meta: CallMeta,
  run: (
    effect: Effect.Effect<Record<string, unknown>, CallError, ToolServices>
  ) => Effect.Effect<Record<string, unknown>, CallError, R>,
  parent?: string
) =>
  // Uninterruptible around the steps, so a cancelled call still gets its outcome record.
  Effect.uninterruptibleMask((restore) =>
    Effect.gen(function*() {
      const row = definition.row
      const started = yield* Clock.currentTimeMillis
      // Decoding acts on nothing: done first, so the record knows what the schema accepted.
      const { decoded, summary, targets } = yield* readArguments(secret, definition, args)
      const intent = yield* Effect.exit(restore(audit.intent({
        tool: row.name,
        ...(parent === undefined ? {} : { parent }),
        toolset: row.toolset,
        tmux_effect: row.effect,
        process_reach: row.reach,
        client_id: meta.clientId,
        request_id: meta.requestId,
        ...meta.recorded,
        targets,
        arguments: summary
      })))
      if (Exit.isFailure(intent)) {
        return {
          exit: Exit.failCause(intent.cause) as Exit.Exit<Record<string, unknown>, CallError>,
          error: Option.getOrUndefined(Cause.findErrorOption(intent.cause))
        }
      }
      // The panes it names are recorded (when recording is on) before it acts: one that cannot be refuses the
      // call. Not a call a hub forwards (its host records its own), a batch (each read is its own call), or
      // the pane view's polls (a person's, not the agent's).
      const recorded = recorder.on && meta.via === undefined && row.audience === "model" && !row.callsTools
        ? recordingOf(row, targets, intent.value)
        : undefined
      const act = run((meta.via ?? execute)(definition, decoded))
      const exit: Exit.Exit<Record<string, unknown>, CallError> = yield* Effect.exit(restore(
        recorded === undefined ? act : Effect.andThen(recorder.before(recorded.named, recorded.mark), act)
      ))
      if (recorded !== undefined) {
        yield* recorder.after(
          recorded.named,
          Exit.isSuccess(exit) ? targetsOf(exit.value) : [],
          recorded.mark,
          Exit.isSuccess(exit) ? runEndOf(exit.value) : undefined
        )
      }
      const error = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.findErrorOption(exit.cause)) : undefined
      yield* audit.outcome({
        call: intent.value,
        tool: row.name,
        outcome: Exit.isSuccess(exit) ? "ok" : "error",
        ...(Exit.isSuccess(exit)
          ? {}
          : { error_tag: error?._tag ?? (Cause.hasInterruptsOnly(exit.cause) ? "Interrupted" : "Defect") }),
        duration_ms: (yield* Clock.currentTimeMillis) - started,
        targets: targetsOf(Exit.isSuccess(exit) ? exit.value : undefined)
      })
      return { exit, error }
    })
  )

/** Records a call refused before anything could run, best effort. */
const rejected = Effect.fn("Registry.rejected")(
  function*({ audit, secret }: Recording, name: string, args: unknown, meta: CallMeta, parent?: string) {
    const definition = isToolName(name) ? definitionOf(name as Parameters<typeof definitionOf>[0]) : undefined
    const broken = brokenBound(args)
    const acceptance: Acceptance = definition === undefined || broken !== undefined
      ? { sinks: {}, refused: "all" }
      : (yield* decodeArguments(definition.input, definition.row.sinks, args)).acceptance
    yield* audit.rejection({
      ...toolNameOf(secret, name, isToolName),
      ...(parent === undefined ? {} : { parent }),
      reason: isToolName(name) ? "not_selected" : "unknown",
      client_id: meta.clientId,
      request_id: meta.requestId,
      arguments: broken === undefined ? summarizeArguments(secret, acceptance, args) : unreadSummary(broken)
    })
  }
)

/** A call's Progress: reports go to the client's sink, whose failures the tool never sees; none without one. */
const reporterOf = (progress: ProgressSink | undefined): ProgressShape =>
  progress === undefined
    ? { progress: () => Effect.void }
    : {
      progress: (done: number, total: number, message: string, about?: Readonly<Record<string, string>>) =>
        Effect.promise(() => progress(done, total, message, about).catch(() => undefined))
    }

/** The registry over the startup selection. @category layers */
export const layer: Layer.Layer<Registry, never, Config | Audit | ToolServices> = Layer.effect(
  Registry,
  Effect.gen(function*() {
    const { selection } = yield* Config
    const audit = yield* Audit
    const secret = yield* ProcessSecret
    // Optional: a host that embeds the registry without one records nothing.
    const recorder = Option.getOrElse(yield* Effect.serviceOption(Recorder), () => recordingOff)
    const recording: Recording = { audit, secret, recorder }
    const linkGate = yield* LinkGate
    const services = yield* Effect.context<ToolServices>()
    const selected = selectedOf(selection)
    const definitions = new Map(selected.map((definition) => [definition.row.name, definition]))
    const provisions = new Map(
      selected.map((definition) => [definition.row.name, provideAllowed(definition.row, services)])
    )
    const provideFor = (definition: ToolDefinition) => provisions.get(definition.row.name)!
    const nestedNames = new Set<string>(selection.batchOperations)

    /** One read the batch asked for: decoded, run and audited as its own call. */
    const nested = (meta: CallMeta, parent: string) =>
      Effect.fn("Registry.nested")(function*(name: string, args: unknown) {
        if (!nestedNames.has(name)) {
          yield* rejected(recording, name, args, meta, parent)
          return {
            ok: false,
            tag: "ToolNotSelected",
            message: `${name} is not an operation of this batch; its operations: ${
              selection.batchOperations.join(", ")
            }`
          } as const
        }
        const { exit, error } = yield* audited(
          recording,
          definitions.get(name)!,
          args,
          meta,
          provideFor(definitions.get(name)!),
          parent
        )
        if (Exit.isSuccess(exit)) return { ok: true, structured: exit.value } as const
        if (error !== undefined) return { ok: false, tag: error._tag, message: error.message } as const
        if (Cause.hasInterruptsOnly(exit.cause)) return yield* Effect.interrupt
        return { ok: false, tag: "Defect", message: `internal error in ${name}; see the server's stderr` } as const
      })

    const call = Effect.fn("Registry.call")(function*(name: string, args: unknown, meta: CallMeta = {}) {
      yield* Effect.annotateCurrentSpan(spanAttributes(name, args))
      const definition = definitions.get(name)
      if (definition === undefined) {
        yield* rejected(recording, name, args, meta)
        return yield* new ToolNotSelected({ name, known: isToolName(name) })
      }
      const reporter = reporterOf(meta.progress)
      const local = (effect: Effect.Effect<Record<string, unknown>, CallError, ToolServices>) =>
        effect.pipe(
          provideFor(definition),
          Effect.provideService(Progress, reporter),
          Effect.provideService(LinkGate, linkGate),
          Effect.provideService(ReadTools, { call: nested(meta, definition.row.name) }),
          meta.task === undefined ? identity : Effect.provideService(TaskCall, meta.task)
        )
      const { exit, error } = yield* audited(recording, definition, args, meta, local)
      if (Exit.isSuccess(exit)) return { _tag: "Success", structured: exit.value } as const
      if (error !== undefined) return { _tag: "Failure", error } as const
      return yield* Effect.failCause(exit.cause as Cause.Cause<never>)
    })

    return Registry.of({ selected, nestedAuthority: selection.batchOperations, call })
  })
)
