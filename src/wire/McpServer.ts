/**
 * The MCP wire: the SDK's low-level `Server` over stdio, with every advertised field derived from
 * the manifest row and the tool's schemas. Each call runs as one Effect fiber in the server's
 * scope: the request's abort signal interrupts it, and closing the scope interrupts every call and
 * waits for them, before the services' finalizers run (the services were built earlier in that scope).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type ServerNotification,
  SetLevelRequestSchema,
  type Tool
} from "@modelcontextprotocol/sdk/types.js"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { type CallMeta, type CallOutcome, Registry, type ToolNotSelected } from "../dispatch/Registry.ts"
import { maxResultChars } from "../domain/bounds.ts"
import type { HostTable } from "../domain/hosts.ts"
import { defaultWaitMaxSeconds } from "../domain/waitCeiling.ts"
import type { AdvertisedSchemas } from "../generated/toolSchemas.ts"
import { withHostParameter } from "../hub/hostParameter.ts"
import { capabilityMetaKey, capabilityRecord } from "../manifest/index.ts"
import { defaultTimeout } from "../programs/waiting.ts"
import { errorMetaKey } from "../services/errors.ts"
import { hubCallMetaKey } from "../services/Hosts.ts"
import { atLeast, type LogLevel, type ServerLog } from "../services/ServerLog.ts"
import type { ToolDefinition } from "../tools/define.ts"
import { leanSchema } from "./leanSchema.ts"
import { appLists, appMimeType, declaresUi, paneViewContents, paneViewResource, uiExtension } from "./PaneApp.ts"
import type { Era } from "./RequestGate.ts"
import { envelopeOf, modernRevision, tasksExtension } from "./Revision.ts"
import { type LocalMethods, UnreadCall } from "./StdioLines.ts"
import { makeTasks, taskNotes } from "./Tasks.ts"

/** The one resource: how this server was configured at startup, and what it offers. */
export const capabilitiesResource = {
  uri: "tmux://capabilities",
  name: "capabilities",
  title: "libtmux-mcp capabilities",
  mimeType: "application/json",
  description: "The pinned socket, how the tool selection was decided, and every enabled tool's capability record. " +
    "Startup configuration, not live tmux state: use the list tools for that."
} as const

/** The `_meta` key with which a tool declares how many characters its result may take (Claude Code reads it). */
export const maxResultSizeKey = "anthropic/maxResultSizeChars"

const hubCallShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/u

export { errorMetaKey }

/** A schema as advertised: an object root, with its definitions kept beside it. */
export const advertisedSchema = (schema: Schema.Top): Tool["inputSchema"] => {
  const document = Schema.toJsonSchemaDocument(schema, { onExcessProperty: "error" })
  const definitions = document.definitions as Record<string, unknown>
  return leanSchema({
    ...(document.schema as Record<string, unknown>),
    ...(Object.keys(definitions).length === 0 ? {} : { $defs: definitions })
  }) as Tool["inputSchema"]
}

/** Advertised schemas converted at build time, by tool name (scripts/tool-list.ts). @category models */
export type { AdvertisedSchemas } from "../generated/toolSchemas.ts"

/**
 * The `tools/list` entry of a definition; the batch's record also names what it may call. Schemas
 * come from `built` when given, except an input specialized to the selection, converted here.
 */
export const toolEntry = (
  definition: ToolDefinition,
  nestedAuthority: ReadonlyArray<string>,
  built?: AdvertisedSchemas,
  waitCeiling: number = defaultWaitMaxSeconds
): Tool => {
  const row = definition.row
  const schemas = built?.[row.name]
  return {
    name: row.name,
    title: row.title,
    description: definition.description,
    inputSchema: withCeiling(
      (definition.specialize === undefined ? schemas?.inputSchema : undefined) ?? advertisedSchema(definition.input),
      waitCeiling
    ),
    outputSchema: schemas?.outputSchema ?? advertisedSchema(definition.output) as Tool["outputSchema"],
    annotations: {
      title: row.title,
      readOnlyHint: row.hints.readOnly,
      destructiveHint: row.hints.destructive,
      idempotentHint: row.hints.idempotent,
      openWorldHint: row.hints.openWorld
    },
    _meta: {
      [capabilityMetaKey]: capabilityRecord(row, nestedAuthority),
      // Claude Code shows a longer result as a file and a preview unless the tool says it may be this long.
      ...(row.output.includes("terminal-content") ? { [maxResultSizeKey]: maxResultChars } : {})
    }
  }
}

/**
 * A waiting tool's `timeout` says the ceiling this server applies (`LIBTMUX_MCP_WAIT_MAX_SECONDS`,
 * read at startup), so a model asks for what it can have.
 */
const withCeiling = (schema: Tool["inputSchema"], ceiling: number): Tool["inputSchema"] => {
  const timeout = schema.properties?.timeout
  if (timeout === undefined || typeof timeout !== "object") return schema
  return {
    ...schema,
    properties: {
      ...schema.properties,
      timeout: { ...timeout, description: `seconds (default ${defaultTimeout}; at most ${ceiling} on this server)` }
    }
  }
}

/** A progress reporter for a request that carries a progress token. */
const progressOf = (
  token: string | number | undefined,
  extra: { sendNotification: (notification: ServerNotification) => Promise<void> }
) =>
  token === undefined
    ? undefined
    : (progress: number, total: number, message: string, meta?: Readonly<Record<string, string>>) =>
      extra.sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress, total, message, ...(meta === undefined ? {} : { _meta: meta }) }
      })

/** The connected client's name and version, as it announced them. */
const clientIdOf = (server: Server): string | undefined => {
  const client = server.getClientVersion()
  return client === undefined ? undefined : `${client.name}/${client.version}`
}

/** Settings of the MCP server itself. @category models */
export interface ServerOptions {
  /** Called after every call with a test for calls still running (used to collect garbage once idle). */
  readonly afterCall?: (busy: () => boolean) => void
  readonly version: string
  readonly instructions: string
  /** The `tmux://capabilities` document, as JSON text, read on each request (where audit records go can change). */
  readonly capabilities: () => string
  /** Schemas converted at build time; without them tools/list converts each tool's schemas at startup. */
  readonly advertised?: AdvertisedSchemas
  /** The ceiling of waits, in seconds, that the waiting tools' `timeout` names (default 30). */
  readonly waitCeiling?: number
  /** Where defects are noted, and the lines a client that asked for log messages is sent. */
  readonly log: ServerLog["Service"]
  /** A hub's hosts: every tool then takes `host`. */
  readonly hosts?: HostTable | undefined
  /** The revision the connection chose (the transport's), which decides whether a call may become a task. */
  readonly era?: (() => Era | undefined) | undefined
  /** How a person attaches to the pinned socket, for a task's question a form may not carry. */
  readonly attach?: string | undefined
}

/** The server, and its handlers of the requests the 2026-07-28 revision adds, for the transport. @category models */
export interface Served {
  readonly server: Server
  readonly local: LocalMethods
}

/**
 * A defect for stderr without its message: messages of thrown errors can quote the call's
 * arguments (a payload), so only the error's name and its stack frames are printed.
 */
export const defectSummary = (cause: Cause.Cause<unknown>): string => {
  const defect = Cause.squash(cause)
  if (!(defect instanceof Error)) return `${typeof defect} thrown (value withheld: it may quote the call's arguments)`
  const frames = (defect.stack ?? "").split("\n").filter((line) => line.trim().startsWith("at ")).slice(0, 12)
  return [`${defect.name} (message withheld: it may quote the call's arguments)`, ...frames].join("\n")
}

/**
 * A JSON-RPC error whose message goes out as written: the SDK's McpError puts "MCP error <code>: "
 * in front, and clients add their own prefix, so the code showed twice.
 */
class RpcError extends Error {
  readonly code: number
  constructor(code: number, message: string) {
    super(message)
    this.code = code
  }
}

/**
 * Log lines reach a client only once it asked for them, at the level it chose (the SDK's own
 * handler would send every line to a client that never asked).
 */
const serveLogLevel = (server: Server, log: ServerLog["Service"]) => {
  let threshold: LogLevel | undefined
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    const first = threshold === undefined
    threshold = request.params.level
    if (first) {
      // Replays the lines logged before (the ready line, startup warnings), then follows.
      log.listen((level, line) => {
        if (threshold !== undefined && atLeast(level, threshold)) {
          server.notification({
            method: "notifications/message",
            params: { level, logger: "libtmux-mcp", data: line }
          })
            .catch(() => undefined)
        }
      })
    }
    return {}
  })
}

/**
 * The resources: `tmux://capabilities`, read afresh on each request, and the pane view's page for a
 * client that declared the UI extension; any other URI is not found.
 */
const serveResources = (
  server: Server,
  options: Pick<ServerOptions, "capabilities">,
  viewFor: (params: unknown) => boolean
) => {
  server.setRequestHandler(ListResourcesRequestSchema, (request) => ({
    resources: viewFor(request.params) ? [capabilitiesResource, paneViewResource] : [capabilitiesResource]
  }))
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }))
  server.setRequestHandler(ReadResourceRequestSchema, (request) => {
    const view = viewFor(request.params)
    if (view && request.params.uri === paneViewResource.uri) return paneViewContents()
    if (request.params.uri !== capabilitiesResource.uri) {
      const known = view
        ? `${capabilitiesResource.uri} and ${paneViewResource.uri}`
        : `only ${capabilitiesResource.uri}`
      throw new RpcError(-32002, `resource ${request.params.uri} not found; the resources are ${known}`)
    }
    return {
      contents: [{ uri: capabilitiesResource.uri, mimeType: "application/json", text: options.capabilities() }]
    }
  })
}

/** The server's name and version, as it introduces itself. */
const serverInfo = (version: string) => ({ name: "libtmux-mcp", title: "libtmux-mcp", version })

/** The `server/discover` result: the revision, what is served (tasks too), and the instructions. */
const discoveryOf = (instructions: string) => ({
  supportedVersions: [modernRevision],
  capabilities: { tools: {}, resources: {}, extensions: { [tasksExtension]: {} } },
  instructions: `${instructions}\n${taskNotes.instructions}`
})

/** A hub's call ID (a UUID) joins the two audit records; anything else is not written down. */
const hubCallOf = (hubCall: unknown): Pick<CallMeta, "recorded"> =>
  typeof hubCall === "string" && hubCallShape.test(hubCall) ? { recorded: { hub_call: hubCall } } : {}

/**
 * A call's end as the client reads it: a tool result, its error flagged; a tool outside the
 * selection or a cancelled request, a JSON-RPC error; a defect, a result that hides its detail
 * (which goes to stderr).
 */
const resultOf = (
  exit: Exit.Exit<CallOutcome, ToolNotSelected>,
  name: string,
  log: ServerLog["Service"]
): CallToolResult => {
  if (Exit.isSuccess(exit)) {
    const outcome = exit.value
    if (outcome._tag === "Success") {
      return {
        content: [{ type: "text", text: JSON.stringify(outcome.structured) }],
        structuredContent: outcome.structured
      }
    }
    return {
      isError: true,
      content: [{ type: "text", text: outcome.error.message }],
      // A host's error keeps the host's own tag.
      _meta: { [errorMetaKey]: outcome.error._tag === "HostCallFailed" ? outcome.error.tag : outcome.error._tag }
    }
  }
  const notSelected = Cause.findErrorOption(exit.cause)
  if (notSelected._tag === "Some") throw new RpcError(ErrorCode.InvalidParams, notSelected.value.message)
  if (Cause.hasInterruptsOnly(exit.cause)) throw new RpcError(ErrorCode.RequestTimeout, "request cancelled")
  // A defect is our bug: say so without sending internals to the model; the detail goes to stderr.
  log.line("error", `libtmux-mcp: internal error in ${name}: ${defectSummary(exit.cause)}`)
  return {
    isError: true,
    content: [{ type: "text", text: `internal error in ${name}; see the server's stderr` }],
    _meta: { [errorMetaKey]: "Defect" }
  }
}

/** What serving tool calls needs of the server being built (`makeServer`). */
interface Calls {
  readonly registry: Registry["Service"]
  readonly runFork: Effect.Success<ReturnType<typeof FiberSet.makeRuntime<never>>>
  readonly tasks: ReturnType<typeof makeTasks>
  /** The pane view's own tools: called only by a request that may see the view. */
  readonly appOnly: ReadonlySet<string>
  readonly viewFor: (params: unknown) => boolean
  readonly options: ServerOptions
}

/**
 * Serves tools/call: each call a fiber of the server's scope, as a task when its request asks and
 * may; `options.afterCall` hears whether calls are still in flight after each.
 */
const serveCalls = (server: Server, { registry, runFork, tasks, appOnly, viewFor, options }: Calls) => {
  let inflight = 0
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    if (appOnly.has(request.params.name) && !viewFor(request.params)) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `${request.params.name} is the pane view's own tool, listed only to clients that declare the ` +
          `${uiExtension} extension with ${appMimeType}; to read a pane, call snapshot_pane or capture_pane`
      )
    }
    inflight++
    // Arguments the stdin framing refused unread stand in for themselves: the registry refuses the call.
    const args = extra.requestInfo instanceof UnreadCall ? extra.requestInfo.arguments : request.params.arguments
    // Only on 2026-07-28, and only when this request declared the extension, may the call become a task.
    const ticket = options.era?.() === "modern"
      ? tasks.ticketFor(request.params.name, args, request.params)
      : undefined
    const fiber = runFork(
      registry.call(request.params.name, args, {
        requestId: extra.requestId,
        clientId: clientIdOf(server) ?? envelopeOf(request.params).client,
        progress: progressOf(request.params._meta?.progressToken, extra),
        ...hubCallOf(request.params._meta?.[hubCallMetaKey]),
        ...(ticket === undefined ? {} : { task: ticket.call })
      }),
      { signal: extra.signal }
    )
    const exit = await new Promise<Exit.Exit<CallOutcome, ToolNotSelected>>((resolve) => fiber.addObserver(resolve))
    inflight--
    options.afterCall?.(() => inflight > 0)
    const task = ticket === undefined || Exit.isFailure(exit) ? undefined : tasks.created(ticket, exit.value)
    // The SDK's result check lets a task's fields through (and adds an empty content the wire removes).
    return task === undefined ? resultOf(exit, request.params.name, options.log) : task as CallToolResult
  })
}

/**
 * Builds the SDK server over the registry; the caller connects a transport. Calls run in the scope
 * this is built in: closing it interrupts the calls in flight and waits for them.
 * @category constructors
 */
export const makeServer = (
  context: Context.Context<Registry>,
  options: ServerOptions
): Effect.Effect<Served, never, Scope.Scope> =>
  Effect.map(FiberSet.makeRuntime<never>(), (runFork) => {
    const registry = Context.get(context, Registry)
    const hosts = options.hosts
    const lists = appLists(
      registry.selected.map((definition) => {
        const entry = toolEntry(definition, registry.nestedAuthority, options.advertised, options.waitCeiling)
        return { row: definition.row, tool: hosts === undefined ? entry : withHostParameter(hosts, entry) }
      }),
      hosts !== undefined
    )
    const server = new Server(serverInfo(options.version), {
      capabilities: { tools: {}, resources: {}, logging: {} },
      instructions: options.instructions
    })
    const tasks = makeTasks({
      registry,
      runFork,
      resultOf: (exit) => resultOf(exit, "run_shell_command", options.log),
      attach: options.attach ?? "tmux attach"
    })
    serveLogLevel(server, options.log)
    // On 2026-07-28 run_shell_command says how its runs become tasks; on 2025-11-25 the list is as it was.
    const withTaskNotes = (tools: ReadonlyArray<Tool>) =>
      tools.map((tool) =>
        tool.name === "run_shell_command"
          ? { ...tool, description: `${tool.description ?? ""}${taskNotes.run_shell_command}` }
          : tool
      )
    const listed = {
      plain: { legacy: lists.plain, modern: withTaskNotes(lists.plain) },
      withView: { legacy: lists.withView, modern: withTaskNotes(lists.withView) }
    }
    // The pane view is this request's when its client declared the UI extension and the view is offered.
    const viewFor = (params: unknown): boolean =>
      lists.withView !== lists.plain &&
      declaresUi(options.era?.() === "modern" ? envelopeOf(params).capabilities : server.getClientCapabilities())
    server.setRequestHandler(ListToolsRequestSchema, (request) => ({
      tools: listed[viewFor(request.params) ? "withView" : "plain"][options.era?.() === "modern" ? "modern" : "legacy"]
    }))
    serveResources(server, options, viewFor)
    serveCalls(server, { registry, runFork, tasks, appOnly: lists.appOnly, viewFor, options })
    const local: LocalMethods = {
      server: serverInfo(options.version),
      discovery: discoveryOf(options.instructions),
      answer: tasks.answer
    }
    return { server, local }
  })

/** Connects the server to a transport. */
export const connect = (server: Server, transport: Transport) => Effect.promise(() => server.connect(transport))
