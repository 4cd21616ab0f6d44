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
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import type * as SchemaIssue from "effect/SchemaIssue"
import { randomUUID } from "node:crypto"
import { boundProblem, brokenBound } from "../domain/argumentBounds.ts"
import { resendable } from "../domain/hostLink.ts"
import { localHost } from "../domain/hosts.ts"
import { withToolsets } from "../domain/hostToolsets.ts"
import { isPaneId } from "../domain/ids.ts"
import {
  type Acceptance,
  summarizeArguments,
  summarizeBatchArguments,
  toolNameOf,
  unreadSummary
} from "../domain/redact.ts"
import { hostWatchCommandLine } from "../domain/watchCommand.ts"
import { type ManifestRow, rowFor, type SinkKind, typesIntoPane } from "../manifest/index.ts"
import { refuseOwnInput } from "../programs/guard.ts"
import { withoutUsual } from "../programs/usual.ts"
import { Audit } from "../services/Audit.ts"
import { Config } from "../services/Config.ts"
import { HostCallFailed, InputInvalid, type ToolError } from "../services/errors.ts"
import { Hosts } from "../services/Hosts.ts"
import { LinkGate } from "../services/LinkGate.ts"
import { ProcessSecret } from "../services/ProcessSecret.ts"
import { Progress } from "../services/Progress.ts"
import { type NestedOutcome, ReadTools } from "../services/ReadTools.ts"
import { allowedKeys, type ToolDefinition, toolKeys, type ToolServices } from "../tools/define.ts"
import { definitionOf } from "../tools/index.ts"
import { hostRefusal } from "../wire/hostParameter.ts"
import { hostAnswer } from "./hostAnswer.ts"

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
  | { readonly _tag: "Failure"; readonly error: ToolError }

/** Identifies a call for the audit record, and carries its progress channel. @category models */
export interface CallMeta {
  readonly requestId?: string | number | undefined
  /** The client's name and version, from its initialize request. */
  readonly clientId?: string | undefined
  /** Where a waiting tool reports progress; absent when the client asked for none. */
  readonly progress?: ((progress: number, total: number, message: string) => Promise<void>) | undefined
  /** The call ID a hub forwarding this call sent, so that the two audit records join. */
  readonly hubCall?: string | undefined
}

/** The selected tools and the way to call them. @category services */
export class Registry extends Context.Service<Registry, {
  /** The selected tools, in manifest order, with their inputs specialized to the selection. */
  readonly selected: ReadonlyArray<ToolDefinition>
  /** What call_read_tools_batch may call under this selection. */
  readonly nestedAuthority: ReadonlyArray<string>
  call(name: string, args: unknown, meta?: CallMeta): Effect.Effect<CallOutcome, ToolNotSelected>
}>()("libtmux-mcp/dispatch/Registry") {}

const decodeOptions = { onExcessProperty: "error", errors: "all" } as const

/** The `_meta` key of a failed call's error tag (the MCP wire's `errorMetaKey`). */
const errorMetaTag = "com.git-pull.libtmux-mcp/error"

/** What a call does with its decoded arguments: the tool's program here, or forwarding to a host. */
/** Where a hub's call goes. */
interface Route {
  readonly host: string
  readonly args: unknown
  readonly refusal?: ToolError
}

type Act = (
  definition: ToolDefinition,
  decoded: Exit.Exit<unknown, InputInvalid>
) => Effect.Effect<Record<string, unknown>, ToolError, ToolServices>

/** What a call's span is annotated with: the tool, and the pane and run its arguments name. */
const spanAttributes = (name: string, args: unknown): Record<string, string> => {
  const given = typeof args === "object" && args !== null ? args as Record<string, unknown> : {}
  return {
    tool: name,
    ...(typeof given.pane_id === "string" ? { pane_id: given.pane_id } : {}),
    ...(typeof given.run_id === "string" ? { run_id: given.run_id } : {})
  }
}

/** The tmux IDs a result names: where the call acted. */
const targetsOf = (structured: Readonly<Record<string, unknown>> | undefined): ReadonlyArray<string> => {
  if (structured === undefined) return []
  const ids = ["session_id", "window_id", "pane_id"].map((key) => structured[key]).filter((id): id is string =>
    typeof id === "string"
  )
  const reached = Array.isArray(structured.targets)
    ? structured.targets.filter((id): id is string => typeof id === "string")
    : []
  return [...new Set([...ids, ...reached])]
}

const isToolName = (name: string): boolean => rowFor(name) !== undefined

/** The sink column of the tool a name stands for; none for an unknown name, so every value is digested. */
const sinksOf = (name: unknown): Readonly<Record<string, SinkKind>> =>
  (typeof name === "string" ? rowFor(name)?.sinks : undefined) ?? {}

/** The tmux IDs that `*_id` arguments name, at any depth: the targets known before the call acts. */
const targetsIn = (args: unknown): ReadonlyArray<string> => {
  const found = new Set<string>()
  const visit = (value: unknown, depth: number): void => {
    if (depth > 3 || value === null || typeof value !== "object") return
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === "string" && key.endsWith("_id") && /^[$@%]\d{1,10}$/u.test(item)) found.add(item)
      else visit(item, depth + 1)
    }
  }
  visit(args, 0)
  return [...found]
}

/**
 * The parameters whose values a decoding failure refused (the first step of each issue's path);
 * `"all"` when an issue concerns the arguments as a whole.
 */
const refusedBy = (issue: SchemaIssue.Issue): ReadonlySet<string> | "all" => {
  const keys = new Set<string>()
  let whole = false
  const visit = (current: SchemaIssue.Issue): void => {
    if (current._tag === "Composite") current.issues.forEach(visit)
    else if (current._tag === "Pointer" && current.path.length > 0) keys.add(String(current.path[0]))
    else if (current._tag === "Pointer") visit(current.issue)
    else whole = true
  }
  visit(issue)
  return whole ? "all" : keys
}

const acceptedAll: ReadonlySet<string> = new Set()

/** Decodes a call's arguments; says what the schema accepted of them either way. */
const decodeArguments = (input: ToolDefinition["input"], sinks: Acceptance["sinks"], args: unknown) =>
  Effect.map(
    Effect.exit(Schema.decodeUnknownEffect(input, decodeOptions)(args ?? {})),
    (exit) => {
      const error = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.findErrorOption(exit.cause)) : undefined
      const acceptance: Acceptance = {
        sinks,
        refused: Exit.isSuccess(exit) ? acceptedAll : error === undefined ? "all" : refusedBy(error.issue)
      }
      return { exit, acceptance }
    }
  )

/** The decoder's message in the caller's terms, with the properties the tool does take. */
const decodeProblem = (definition: ToolDefinition, message: string): string => {
  const ast = definition.input.ast
  const properties = SchemaAST.isObjects(ast) ? ast.propertySignatures.map((signature) => String(signature.name)) : []
  const text = message.replaceAll("Expected no excess property", "Unknown property").replaceAll(
    "Expected never",
    "Unknown property"
  )
  return `${text}\n${
    properties.length === 0 ? "this tool takes no arguments" : `valid properties: ${properties.join(", ")}`
  }`
}

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

/** The registry over the startup selection. @category layers */
export const layer: Layer.Layer<Registry, never, Config | Audit | ToolServices> = Layer.effect(
  Registry,
  Effect.gen(function*() {
    const { config, selection } = yield* Config
    // Only a hub has hosts (Services.ts provides them with the host table).
    const hubHosts = yield* Effect.serviceOption(Hosts)
    const audit = yield* Audit
    const secret = yield* ProcessSecret
    const linkGate = yield* LinkGate
    const services = yield* Effect.context<ToolServices>()
    const selected = selection.tools.map((name) => {
      const definition = definitionOf(name)!
      return definition.specialize === undefined
        ? definition
        : { ...definition, input: definition.specialize(selection) }
    })
    const definitions = new Map(selected.map((definition) => [definition.row.name, definition]))
    const provisions = new Map(
      selected.map((definition) => [definition.row.name, provideAllowed(definition.row, services)])
    )
    const provideFor = (definition: ToolDefinition) => provisions.get(definition.row.name)!
    const nestedNames = new Set<string>(selection.batchOperations)

    const execute = (definition: ToolDefinition, decoded: Exit.Exit<unknown, InputInvalid>) =>
      Effect.gen(function*() {
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
      })

    /**
     * The arguments as the record shows them; a batch's operations are redacted by the sinks
     * of the tools they name.
     */
    const summaryOf = (row: ToolDefinition["row"], acceptance: Acceptance, args: unknown): unknown =>
      row.callsTools
        ? summarizeBatchArguments(secret, acceptance, sinksOf, isToolName, args)
        : summarizeArguments(secret, acceptance, args)

    /**
     * A call's arguments as dispatch reads them: over the bounds no tool's schema exceeds, refused
     * unread (nothing walks them: not the decoder, the targets or the summary); else decoded, with
     * what the schema accepted.
     */
    const readArguments = (definition: ToolDefinition, args: unknown) => {
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
        summary: summaryOf(definition.row, acceptance, args)
      }))
    }

    /**
     * Runs one call, written ahead: the intent record (row facts, the targets the arguments name,
     * redacted arguments) before anything acts, and the call does not run when it cannot be
     * written; then the outcome record, best effort. `parent` marks a batch operation.
     */
    const audited = <R>(
      definition: ToolDefinition,
      args: unknown,
      meta: CallMeta,
      run: (
        effect: Effect.Effect<Record<string, unknown>, ToolError, ToolServices>
      ) => Effect.Effect<Record<string, unknown>, ToolError, R>,
      parent?: string,
      where?: { readonly host: string; readonly act?: Act; readonly hubCall?: string }
    ) =>
      // Uninterruptible around the steps, so a cancelled call still gets its outcome record.
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const row = definition.row
          const started = yield* Clock.currentTimeMillis
          // Decoding acts on nothing: done first, so the record knows what the schema accepted.
          const { decoded, summary, targets } = yield* readArguments(definition, args)
          const intent = yield* Effect.exit(restore(audit.intent({
            tool: row.name,
            ...(parent === undefined ? {} : { parent }),
            toolset: row.toolset,
            tmux_effect: row.effect,
            process_reach: row.reach,
            client_id: meta.clientId,
            request_id: meta.requestId,
            ...(where === undefined ? {} : { host: where.host }),
            ...(where?.hubCall === undefined ? {} : { hub_call: where.hubCall }),
            ...(meta.hubCall === undefined ? {} : { hub_call: meta.hubCall }),
            targets,
            arguments: summary
          })))
          if (Exit.isFailure(intent)) {
            return {
              exit: Exit.failCause(intent.cause) as Exit.Exit<Record<string, unknown>, ToolError>,
              error: Option.getOrUndefined(Cause.findErrorOption(intent.cause))
            }
          }
          const exit = yield* Effect.exit(restore(run((where?.act ?? execute)(definition, decoded))))
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
    const rejected = (name: string, args: unknown, meta: CallMeta, parent?: string) =>
      Effect.gen(function*() {
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
      })

    /** One read the batch asked for: decoded, run and audited as its own call. */
    const nested = (meta: CallMeta, parent: string) => (name: string, args: unknown): Effect.Effect<NestedOutcome> =>
      Effect.gen(function*() {
        if (!nestedNames.has(name)) {
          yield* rejected(name, args, meta, parent)
          return {
            ok: false,
            tag: "ToolNotSelected",
            message: `${name} is not an operation of this batch; its operations: ${
              selection.batchOperations.join(", ")
            }`
          } as const
        }
        const { exit, error } = yield* audited(
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

    const table = config.hosts
    if (table !== undefined && Option.isNone(hubHosts)) {
      return yield* Effect.die(new Error("a host table was configured without the Hosts service"))
    }
    const hosts = Option.getOrUndefined(hubHosts)!

    /** Where a hub's call goes, and its arguments without `host`; a refusal when `host` is wrong or missing. */
    const routeOf = (definition: ToolDefinition, args: unknown): Route => {
      const given = typeof args === "object" && args !== null && !Array.isArray(args)
        ? args as Record<string, unknown>
        : undefined
      const { host, ...rest } = given ?? {}
      // Security: a host --host-toolsets narrows away from the tool is refused here, before anything is sent.
      const refusal = hostRefusal(table!, definition.row.name, host)
      if (refusal !== undefined) {
        return {
          host: typeof host === "string" ? host : table!.defaultHost,
          args: given === undefined ? args : rest,
          refusal
        }
      }
      return { host: (host as string | undefined) ?? table!.defaultHost, args: given === undefined ? args : rest }
    }

    /** Sends the decoded call to the host's server; its answer, or its error named with the host. */
    const forward = (
      host: string,
      hubCall: string,
      progress: CallMeta["progress"]
    ): Act =>
    (_definition, decoded) =>
      Effect.gen(function*() {
        const input = (yield* decoded) as Record<string, unknown>
        const result = yield* hosts.call(host, _definition.row.name, input, {
          // The call's time: the longest wait this server allows, and room for the rest (connect included).
          timeoutMs: (config.waitMaxSeconds + 30) * 1000,
          callId: hubCall,
          resend: resendable(_definition.row),
          progress
        })
        const text = result.content.map((part) => part.type === "text" ? part.text : "").join("\n")
        if (result.isError === true) {
          const tag = result._meta?.[errorMetaTag]
          return yield* new HostCallFailed({ host, tag: typeof tag === "string" ? tag : "Unknown", text })
        }
        // Security: a command line the host composed is never passed on for the agent's machine to run;
        // a watch_command is built from the hub's own host table.
        const { watch_command: composed, ...answer } = yield* hostAnswer(host, _definition, result.structuredContent)
        const remote = table?.remotes.find((entry) => entry.name === host)
        const watch = composed === undefined || remote === undefined ? undefined : hostWatchCommandLine({
          ssh: { destination: remote.destination, port: remote.port, sshConfig: table!.sshConfig },
          entry: remote.command,
          runId: String(answer.run_id),
          paneId: String(answer.pane_id)
        })
        return watch === undefined ? answer : { ...answer, watch_command: watch }
      })

    /** A hub's result: with its host, and get_server_info's with every host's state. */
    const withHost = (definition: ToolDefinition, host: string, structured: Record<string, unknown>) =>
      definition.row.name === "get_server_info"
        ? Effect.map(
          hosts.states,
          (states) => ({ ...structured, host, hosts: withToolsets(table?.toolsets, selection.toolsets, states) })
        )
        : Effect.succeed({ ...structured, host })

    const call = Effect.fn("Registry.call")(function*(name: string, args: unknown, meta: CallMeta = {}) {
      yield* Effect.annotateCurrentSpan(spanAttributes(name, args))
      const definition = definitions.get(name)
      if (definition === undefined) {
        yield* rejected(name, args, meta)
        return yield* new ToolNotSelected({ name, known: isToolName(name) })
      }
      const progress = meta.progress
      const reporter = progress === undefined
        ? { progress: () => Effect.void }
        : {
          progress: (done: number, total: number, message: string) =>
            Effect.promise(() => progress(done, total, message).catch(() => undefined))
        }
      const local = (effect: Effect.Effect<Record<string, unknown>, ToolError, ToolServices>) =>
        effect.pipe(
          provideFor(definition),
          Effect.provideService(Progress, reporter),
          Effect.provideService(LinkGate, linkGate),
          Effect.provideService(ReadTools, { call: nested(meta, definition.row.name) })
        )
      const route: Route | undefined = table === undefined ? undefined : routeOf(definition, args)
      const { exit, error } = route === undefined
        ? yield* audited(definition, args, meta, local)
        : yield* audited(definition, route.args, meta, local, undefined, {
          host: route.host,
          ...(route.refusal !== undefined
            ? { act: () => Effect.fail(route.refusal!) }
            : route.host === localHost
            ? {}
            : ((hubCall) => ({ hubCall, act: forward(route.host, hubCall, progress) }))(randomUUID()))
        })
      if (Exit.isSuccess(exit)) {
        return {
          _tag: "Success",
          structured: route === undefined ? exit.value : yield* withHost(definition, route.host, exit.value)
        } as const
      }
      if (error !== undefined) return { _tag: "Failure", error } as const
      return yield* Effect.failCause(exit.cause as Cause.Cause<never>)
    })

    return Registry.of({ selected, nestedAuthority: selection.batchOperations, call })
  })
)
