/**
 * The MCP lifecycle on the wire, before the SDK sees a message. A connection's first request
 * chooses its revision (Revision.ts): `initialize` the 2025-11-25 one, where nothing but
 * `initialize` and `ping` is served before `initialize` and `initialize` is answered once; a request
 * with the 2026-07-28 envelope the new one, where every request must carry that envelope and
 * `server/discover`, listens and tasks are answered by this server's own handlers. In both, a
 * request whose params do not fit its method gets -32602 with one line instead of the SDK's -32603
 * and a raw schema dump. The params are checked again only when the SDK's answer is an internal error, so a normal call
 * costs no second parse.
 */
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  LATEST_PROTOCOL_VERSION,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import {
  envelopeOf,
  localMethods,
  metaKeys,
  modernMethods,
  modernRevision,
  revisionErrors,
  type ServerInfo,
  stampResult
} from "./Revision.ts"

/** A JSON-RPC error for a message that is not passed on. @category models */
export interface Refusal {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/**
 * What becomes of a message: passed on to the SDK's server, refused, answered by this server's own
 * handlers of the 2026-07-28 revision (`local`), or taken here (a listen stream's cancellation).
 * @category models
 */
export type Admission = undefined | Refusal | "local" | "taken"

/** Which revision a connection speaks: chosen by its first request (`initialize`, or an envelope). */
export type Era = "legacy" | "modern"

// The methods this server serves, with the SDK's schema of each request.
const requestSchemas = new Map<string, { safeParse(value: unknown): { success: boolean; error?: unknown } }>([
  ["initialize", InitializeRequestSchema],
  ["ping", PingRequestSchema],
  ["tools/list", ListToolsRequestSchema],
  ["tools/call", CallToolRequestSchema],
  ["resources/list", ListResourcesRequestSchema],
  ["resources/templates/list", ListResourceTemplatesRequestSchema],
  ["resources/read", ReadResourceRequestSchema],
  ["logging/setLevel", SetLevelRequestSchema]
])

/** The first problem a schema found, as one short line. */
const firstIssue = (error: unknown): string => {
  const issue = (error as { issues?: ReadonlyArray<{ path?: ReadonlyArray<unknown>; message?: string }> }).issues?.[0]
  if (issue === undefined) return "they do not fit the method"
  const path = (issue.path ?? []).map(String).join(".")
  return `${path === "" ? "the request" : path}: ${String(issue.message ?? "invalid").split("\n")[0]!.slice(0, 160)}`
}

// The line was already parsed as a JSON-RPC message: telling its kind needs no second schema parse.
const isRequest = (message: JSONRPCMessage): message is JSONRPCRequest => "method" in message && "id" in message

const isNotification = (message: JSONRPCMessage): message is JSONRPCNotification =>
  "method" in message && !("id" in message)

/** The refusal of an envelope naming another revision: what is served, and how. */
const unsupported = (requested: string | undefined): Refusal => ({
  code: revisionErrors.unsupportedVersion,
  message: `Unsupported protocol version${requested === undefined ? "" : ` ${requested.slice(0, 40)}`}: ` +
    `this server speaks ${modernRevision} (per-request _meta, server/discover) and, after initialize, ` +
    `${LATEST_PROTOCOL_VERSION} and older`,
  data: { supported: [modernRevision], ...(requested === undefined ? {} : { requested }) }
})

/** What a connection's gate keeps. */
interface GateState {
  era: Era | undefined
  /** Requests passed on and not yet answered, kept to explain an internal error the SDK answers. */
  readonly open: Map<string | number, JSONRPCRequest>
  /** Requests passed on over the 2026-07-28 revision, by ID, with their method: their results are stamped. */
  readonly modern: Map<string | number, string>
  /** The open `subscriptions/listen` streams, by request ID: their cancellation is taken here. */
  readonly listens: Set<string | number>
}

/** A request of the 2025-11-25 lifecycle: nothing but `initialize` and `ping` before `initialize`. */
const admitLegacy = (gate: GateState, message: JSONRPCRequest): Admission => {
  if (message.method === "initialize") {
    if (gate.era === "legacy") {
      return {
        code: ErrorCode.InvalidRequest,
        message: "Invalid Request: this connection is already initialized; initialize is answered once"
      }
    }
    if (InitializeRequestSchema.safeParse(message).success) gate.era = "legacy"
  } else if (gate.era === undefined && message.method !== "ping") {
    return {
      code: ErrorCode.InvalidRequest,
      message: `Invalid Request: ${message.method} before initialize; send initialize first`
    }
  }
  if (requestSchemas.has(message.method)) gate.open.set(message.id, message)
  return undefined
}

/** A request of the 2026-07-28 revision, its envelope naming `version`. */
const admitModern = (gate: GateState, message: JSONRPCRequest, version: string | undefined): Admission => {
  if (version !== modernRevision) {
    return message.method === "initialize" || version !== undefined ? unsupported(version) : {
      code: ErrorCode.InvalidParams,
      message: `Invalid params: ${message.method} has no _meta envelope; on ${modernRevision} every request ` +
        `carries _meta["${metaKeys.version}"]`
    }
  }
  if (!modernMethods.has(message.method)) {
    return {
      code: ErrorCode.MethodNotFound,
      message: `Method not found: ${message.method.slice(0, 60)} is not served on ${modernRevision}; served: ${
        [...modernMethods].join(", ")
      }`
    }
  }
  gate.era = "modern"
  if (message.method === "subscriptions/listen") gate.listens.add(message.id)
  if (localMethods.has(message.method)) return "local"
  gate.modern.set(message.id, message.method)
  if (requestSchemas.has(message.method)) gate.open.set(message.id, message)
  return undefined
}

/** Why a message is answered here instead of being passed on, or undefined. */
const admit = (gate: GateState, message: JSONRPCMessage): Admission => {
  if (isNotification(message)) {
    const cancelled = message.method === "notifications/cancelled" ? message.params?.requestId : undefined
    if (typeof cancelled !== "string" && typeof cancelled !== "number") return undefined
    // A cancelled request gets no answer: nothing is kept for one.
    gate.open.delete(cancelled)
    gate.modern.delete(cancelled)
    return gate.listens.delete(cancelled) ? "taken" : undefined
  }
  if (!isRequest(message)) return undefined
  if (gate.era === "legacy") return admitLegacy(gate, message)
  // A probe before the revision is chosen, or on the new one, is answered without choosing it.
  if (message.method === "server/discover") return "local"
  const { version } = envelopeOf(message.params)
  if (gate.era === "modern" || (version !== undefined && message.method !== "initialize")) {
    return admitModern(gate, message, version)
  }
  return admitLegacy(gate, message)
}

/** The answer as it goes out: an internal error for params that do not fit becomes -32602. */
const answer = (gate: GateState, message: JSONRPCMessage, server: ServerInfo): JSONRPCMessage => {
  if (!("id" in message) || "method" in message || message.id === undefined) return message
  const method = gate.modern.get(message.id)
  gate.modern.delete(message.id)
  const stamped = method !== undefined && "result" in message
    ? { ...message, result: stampResult(method, message.result, server) as typeof message.result }
    : message
  const request = gate.open.get(message.id)
  if (request === undefined) return stamped
  gate.open.delete(message.id)
  if (!("error" in message) || message.error.code !== ErrorCode.InternalError) return stamped
  const parsed = requestSchemas.get(request.method)!.safeParse(request)
  return parsed.success ? message : {
    jsonrpc: "2.0",
    id: message.id,
    error: {
      code: ErrorCode.InvalidParams,
      message: `Invalid params for ${request.method}: ${firstIssue(parsed.error)}`
    }
  }
}

/** The lifecycle state of one connection. @category constructors */
export const requestGate = (server: () => ServerInfo) => {
  const gate: GateState = { era: undefined, open: new Map(), modern: new Map(), listens: new Set() }
  return {
    admit: (message: JSONRPCMessage) => admit(gate, message),
    answer: (message: JSONRPCMessage) => answer(gate, message, server()),
    era: () => gate.era
  }
}
