/**
 * The 2026-07-28 revision of MCP as this server speaks it beside 2025-11-25 on one stdio
 * connection: a client that opens with `initialize` gets the old revision, unchanged; one whose
 * requests carry the per-request `_meta` envelope gets the new one (no `initialize`, `server/discover`,
 * `resultType` on every result, cache fields on cacheable ones, tasks). The SDK's `Server` (1.32)
 * serves both eras' common methods; what is new is answered here (RequestGate.ts, Tasks.ts).
 */

/** The revision served without `initialize`. */
export const modernRevision = "2026-07-28"

/** The `_meta` keys of the revision's envelope and results. */
export const metaKeys = {
  version: "io.modelcontextprotocol/protocolVersion",
  clientInfo: "io.modelcontextprotocol/clientInfo",
  capabilities: "io.modelcontextprotocol/clientCapabilities",
  serverInfo: "io.modelcontextprotocol/serverInfo",
  subscription: "io.modelcontextprotocol/subscriptionId"
} as const

/** The tasks extension's identifier, in capabilities' `extensions`. */
export const tasksExtension = "io.modelcontextprotocol/tasks"

/** The revision's own error codes. */
export const revisionErrors = {
  /** A request needs a capability the client did not declare on it. */
  missingCapability: -32021,
  unsupportedVersion: -32022
} as const

/** Methods whose results carry `ttlMs` and `cacheScope`. */
const cacheable = new Set([
  "server/discover",
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "resources/read"
])

/** Methods of the revision answered here, not by the SDK's server. */
export const localMethods = new Set([
  "server/discover",
  "subscriptions/listen",
  "tasks/get",
  "tasks/update",
  "tasks/cancel"
])

/** Every method this server serves on the revision. */
export const modernMethods = new Set([
  ...localMethods,
  "tools/list",
  "tools/call",
  "resources/list",
  "resources/templates/list",
  "resources/read"
])

/** The server's name and version, as results name it. @category models */
export interface ServerInfo {
  readonly name: string
  readonly title: string
  readonly version: string
}

type Json = Readonly<Record<string, unknown>>

/** `value` when it is a JSON object, else `undefined`. */
export const objectOr = (value: unknown): Json | undefined =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value as Json : undefined

/** A request's envelope, from its params' `_meta`: the revision it names, when it names one. */
export const envelopeOf = (params: unknown) => {
  const meta = objectOr(objectOr(params)?._meta)
  const version = meta?.[metaKeys.version]
  const clientInfo = objectOr(meta?.[metaKeys.clientInfo])
  return {
    version: typeof version === "string" ? version : version === undefined ? undefined : String(version),
    client: typeof clientInfo?.name === "string"
      ? `${clientInfo.name}/${typeof clientInfo.version === "string" ? clientInfo.version : "?"}`
      : undefined,
    capabilities: objectOr(meta?.[metaKeys.capabilities]) ?? {}
  }
}

/** Whether a request declared the tasks extension in its own capabilities (never inferred from others). */
export const declaresTasks = (params: unknown): boolean =>
  objectOr(objectOr(envelopeOf(params).capabilities.extensions)?.[tasksExtension]) !== undefined

/**
 * A result as the revision sends it: `resultType` (complete unless it says otherwise), the cache
 * fields on a cacheable method (never cached: what it reads can change), and the server's info.
 * A task result carries no `content` (the SDK's result check adds an empty one).
 */
export const stampResult = (method: string, result: Json, server: ServerInfo): Json => {
  const { content, ...rest } = result
  const task = result.resultType === "task"
  return {
    ...(task && Array.isArray(content) && content.length === 0 ? rest : result),
    resultType: result.resultType ?? "complete",
    ...(cacheable.has(method) ? { ttlMs: result.ttlMs ?? 0, cacheScope: result.cacheScope ?? "private" } : {}),
    _meta: { ...objectOr(result._meta), [metaKeys.serverInfo]: server }
  }
}
