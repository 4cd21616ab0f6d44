/**
 * The MCP lifecycle on the wire, before the SDK sees a message: nothing but `initialize` and `ping`
 * is served before `initialize`, `initialize` is answered once, and a request whose params do not
 * fit its method gets -32602 with one line instead of the SDK's -32603 and a raw schema dump.
 * The params are checked again only when the SDK's answer is an internal error, so a normal call
 * costs no second parse.
 */
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  type JSONRPCMessage,
  type JSONRPCRequest,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema
} from "@modelcontextprotocol/sdk/types.js"

/** A JSON-RPC error for a message that is not passed on. @category models */
export interface Refusal {
  readonly code: number
  readonly message: string
}

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

/** The lifecycle state of one connection. @category constructors */
export const requestGate = () => {
  let initialized = false
  // Requests passed on and not yet answered, kept to explain an internal error the SDK answers.
  const open = new Map<string | number, JSONRPCRequest>()

  /** Why a message is answered here instead of being passed on, or undefined. */
  const admit = (message: JSONRPCMessage): Refusal | undefined => {
    if (!isRequest(message)) return undefined
    if (message.method === "initialize") {
      if (initialized) {
        return {
          code: ErrorCode.InvalidRequest,
          message: "Invalid Request: this connection is already initialized; initialize is answered once"
        }
      }
      if (InitializeRequestSchema.safeParse(message).success) initialized = true
    } else if (!initialized && message.method !== "ping") {
      return {
        code: ErrorCode.InvalidRequest,
        message: `Invalid Request: ${message.method} before initialize; send initialize first`
      }
    }
    if (requestSchemas.has(message.method)) open.set(message.id, message)
    return undefined
  }

  /** The answer as it goes out: an internal error for params that do not fit becomes -32602. */
  const answer = (message: JSONRPCMessage): JSONRPCMessage => {
    if (!("id" in message) || "method" in message || message.id === undefined) return message
    const request = open.get(message.id)
    if (request === undefined) return message
    open.delete(message.id)
    if (!("error" in message) || message.error.code !== ErrorCode.InternalError) return message
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

  return { admit, answer }
}
