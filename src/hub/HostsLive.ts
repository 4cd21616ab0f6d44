/**
 * The hub's hosts, live: per host one MCP session through the SDK's own `Client` over
 * `StdioClientTransport`, running `ssh -T ... DESTINATION <the server there>`. A session starts at
 * the host's first call (a host that is down costs only its own calls), is kept, pinged every third
 * of the link timeout (so the host's server, which exits after that long without a message, knows
 * the hub is there), and is closed with the layer's scope. Each host has its own slot: a host that
 * drops or hangs never holds another's calls. A session that ends fails its calls in flight: a read
 * is sent once more on a new session, any other call answers OutcomeUnknown and is never resent.
 * A connect that fails leaves the host alone for a back-off pause, during which its calls fail at
 * once with the last error. A host's answer over the bound on one message (HostTransport.ts), or one
 * that is not a tool result, fails its call with HostAnswerRefused; the session goes on.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { type CallToolResult, ErrorCode, McpError, type Progress } from "@modelcontextprotocol/sdk/types.js"
import type { JsonSchemaValidator, jsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/types.js"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { backOffMs, defaultLinkTimeoutSeconds, keepAliveSeconds } from "../domain/hostLink.ts"
import type { HostTable, RemoteHostEntry } from "../domain/hosts.ts"
import { runIdPattern } from "../domain/protocolNames.ts"
import {
  HostAnswerRefused,
  HostCallFailed,
  HostLost,
  HostToolMissing,
  HostUnknown,
  HostUnreachable,
  OutcomeUnknown
} from "../services/errors.ts"
import { type ForwardOptions, Hosts, type HostState, hubCallMetaKey } from "../services/Hosts.ts"
import { runIdMetaKey } from "../services/Progress.ts"
import { version } from "../version.ts"
import { HostSessions } from "./HostSessions.ts"
import { answerRefusedCode } from "./HostTransport.ts"

/** A connected host: its session and what its initialize answer and tools/list said. */
interface Session {
  readonly client: Client
  readonly version: string
  readonly instructions: string | undefined
  readonly tools: ReadonlySet<string>
}

type Slot =
  | { readonly state: "idle"; readonly lastError?: string }
  | { readonly state: "connecting"; readonly ready: Promise<Session> }
  | { readonly state: "connected"; readonly session: Session }
  | { readonly state: "unreachable"; readonly error: string; readonly failures: number; readonly nextTryAt: number }

/** A call's session went (closed, or no answer in time) before it answered. */
class Dropped {
  readonly _tag = "Dropped"
  readonly detail: string
  /** Closed (the call can be sent again on a new session), or no answer within its time (it cannot). */
  readonly closed: boolean
  constructor(detail: string, closed: boolean) {
    this.detail = detail
    this.closed = closed
  }
}

/**
 * The host is this same server, which encodes its results with the schemas it advertises; the
 * hub's own client checks them against the hub's. (The bundle carries no JSON Schema compiler.)
 */
const passThrough: jsonSchemaValidator = {
  getValidator: <T>(): JsonSchemaValidator<T> => (input) => ({ valid: true, data: input as T, errorMessage: undefined })
}

/** The first thing the SDK's schema found wrong with a result, as `path: message`. */
const firstIssue = (error: Error): string => {
  const issue = (error as { issues?: ReadonlyArray<{ path?: ReadonlyArray<unknown>; message?: string }> }).issues?.[0]
  return issue === undefined ? error.message.slice(0, 300) : `${(issue.path ?? []).join(".")}: ${issue.message}`
}

/** A progress report's run ID, as its `_meta` names it; anything else there is not passed on. */
const runIdOf = (update: Progress): Readonly<Record<string, string>> | undefined => {
  const id = (update as { readonly _meta?: Readonly<Record<string, unknown>> })._meta?.[runIdMetaKey]
  return typeof id === "string" && runIdPattern.test(id) ? { [runIdMetaKey]: id } : undefined
}

const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`

/** What the hub's parts share: the hosts' slots, the clock, the links, and the ping interval. */
interface Hub {
  readonly slots: Map<string, Slot>
  readonly now: () => number
  readonly sessions: HostSessions["Service"]
  readonly aliveMs: number
}

type Failure = HostUnreachable | HostToolMissing | HostCallFailed | HostAnswerRefused | HostLost | OutcomeUnknown

/**
 * A new session with the host: connected, its tools listed, pinged while it lasts; when it closes, its
 * slot goes back to idle with what the host said last. A connect that fails says why in ssh's words.
 */
const openSession = async ({ aliveMs, sessions, slots }: Hub, host: RemoteHostEntry): Promise<Session> => {
  const { transport, said: lastSaid } = sessions.open(host)
  const client = new Client({ name: "libtmux-mcp-hub", version }, { jsonSchemaValidator: passThrough })
  try {
    await client.connect(transport)
    const listed = await client.listTools()
    const session: Session = {
      client,
      version: client.getServerVersion()?.version ?? "unknown",
      instructions: client.getInstructions()?.split("\n")[0],
      tools: new Set(listed.tools.map((tool) => tool.name))
    }
    // The host's server counts silence as a partition: a quiet link is pinged. A ping that gets no
    // answer changes nothing here: the calls keep their own deadlines, ssh's keep-alives end a dead link.
    const pinger = setInterval(() => void client.ping({ timeout: aliveMs }).catch(() => undefined), aliveMs)
    pinger.unref()
    client.onclose = () => {
      clearInterval(pinger)
      const slot = slots.get(host.name)
      if (slot?.state === "connected" && slot.session === session) {
        slots.set(host.name, {
          state: "idle",
          lastError: `the session ended${((line) => line === undefined ? "" : `: ${line}`)(lastSaid())}`
        })
      }
    }
    return session
  } catch (error) {
    await client.close().catch(() => undefined)
    // ssh's own words say why (refused, no route, permission denied, command not found).
    const reason = error instanceof Error ? error.message : String(error)
    const said = lastSaid()
    throw new Error(said === undefined || said.startsWith("libtmux-mcp ready") ? reason : `${said} (${reason})`)
  }
}

/** The host's session: the kept one, the one being started, or a new one; none during a back-off. */
const sessionOf = (hub: Hub, host: RemoteHostEntry): Promise<Session> => {
  const { now, slots } = hub
  const slot = slots.get(host.name)!
  if (slot.state === "connected") return Promise.resolve(slot.session)
  if (slot.state === "connecting") return slot.ready
  if (slot.state === "unreachable" && now() < slot.nextTryAt) {
    return Promise.reject(
      new Error(
        `${slot.error}; not tried again until ${new Date(slot.nextTryAt).toISOString()} (in ${
          seconds(slot.nextTryAt - now())
        }, after ${slot.failures} failed connect${slot.failures === 1 ? "" : "s"} in a row)`
      )
    )
  }
  const failures = slot.state === "unreachable" ? slot.failures : 0
  const ready = openSession(hub, host).then(
    (session) => {
      slots.set(host.name, { state: "connected", session })
      return session
    },
    (error: Error) => {
      slots.set(host.name, {
        state: "unreachable",
        error: error.message,
        failures: failures + 1,
        nextTryAt: now() + backOffMs(failures + 1)
      })
      throw error
    }
  )
  slots.set(host.name, { state: "connecting", ready })
  return ready
}

const connect = (hub: Hub, host: RemoteHostEntry, timeoutMs: number) =>
  Effect.tryPromise({
    try: () => sessionOf(hub, host),
    catch: (error) =>
      new HostUnreachable({ host: host.name, detail: error instanceof Error ? error.message : String(error) })
  }).pipe(
    Effect.timeoutOrElse({
      duration: Math.max(1, timeoutMs),
      orElse: () =>
        Effect.fail(
          new HostUnreachable({
            host: host.name,
            detail: `ssh did not connect within the call's ${seconds(timeoutMs)}`
          })
        )
    })
  )

/** What a failed `callTool` means: an answer refused, a session gone (closed or silent), or the call's own failure. */
const sendFailure = (
  error: unknown,
  host: RemoteHostEntry,
  tool: string,
  remaining: number
): Dropped | HostCallFailed | HostAnswerRefused =>
  error instanceof McpError && error.code === answerRefusedCode
    ? new HostAnswerRefused({
      host: host.name,
      tool,
      detail: error.message.replace(/^MCP error -?\d+: /u, "")
    })
    : error instanceof Error && (error.name === "ZodError" || error.name === "$ZodError")
    ? new HostAnswerRefused({
      host: host.name,
      tool,
      detail: `it is not a tool result (${firstIssue(error)})`
    })
    : error instanceof McpError && error.code === ErrorCode.ConnectionClosed
    ? new Dropped("its ssh session closed", true)
    : error instanceof McpError && error.code === ErrorCode.RequestTimeout
    ? new Dropped(`no answer within ${seconds(remaining)}`, false)
    : error instanceof Error && error.message === "Not connected"
    ? new Dropped("its ssh session had closed", true)
    : new HostCallFailed({
      host: host.name,
      tag: error instanceof McpError ? `JsonRpc${error.code}` : "Unknown",
      text: error instanceof Error ? error.message : String(error)
    })

/** Passes the host's progress reports on, noting the first run ID one names in `seen`. */
const onProgress =
  (progress: ForwardOptions["progress"], seen: { runId: string | undefined }) => (update: Progress) => {
    // A run names its ID in its reports' `_meta`: a call lost after one can point at the run.
    const about = runIdOf(update)
    seen.runId ??= about?.[runIdMetaKey]
    if (progress !== undefined) {
      void progress(update.progress, update.total ?? 0, update.message ?? "", about).catch(() => undefined)
    }
  }

/** One sending of the call, on the host's session (started if need be), within the call's deadline. */
const send = (
  hub: Hub,
  host: RemoteHostEntry,
  tool: string,
  args: Readonly<Record<string, unknown>>,
  options: ForwardOptions,
  deadline: number,
  seen: { runId: string | undefined }
) =>
  Effect.gen(function*() {
    const session = yield* connect(hub, host, deadline - hub.now())
    if (!session.tools.has(tool)) {
      return yield* new HostToolMissing({ host: host.name, tool, version: session.version })
    }
    const remaining = Math.max(1, deadline - hub.now())
    return yield* Effect.tryPromise({
      try: (signal) =>
        session.client.callTool(
          { name: tool, arguments: { ...args }, _meta: { [hubCallMetaKey]: options.callId } },
          undefined,
          { signal, timeout: remaining, onprogress: onProgress(options.progress, seen) }
        ) as Promise<CallToolResult>,
      catch: (error) => sendFailure(error, host, tool, remaining)
    })
  })

const isDropped = (error: unknown): error is Dropped => error instanceof Dropped

/** `Hosts.call` over the hub's remotes; `known` names every host, for a name that is none of them. */
const makeCall = (hub: Hub, remotes: ReadonlyArray<RemoteHostEntry>, known: ReadonlyArray<string>) =>
  Effect.fn("Hosts.call")(function*(
    name: string,
    tool: string,
    args: Readonly<Record<string, unknown>>,
    options: ForwardOptions
  ) {
    const host = remotes.find((candidate) => candidate.name === name)
    if (host === undefined) return yield* new HostUnknown({ host: name, known })
    const deadline = hub.now() + options.timeoutMs
    const seen = { runId: typeof args.resume === "string" ? args.resume : undefined }
    const once = send(hub, host, tool, args, options, deadline, seen)
    const lost = (dropped: Dropped): HostLost | OutcomeUnknown =>
      options.resend
        ? new HostLost({ host: name, detail: dropped.detail })
        : new OutcomeUnknown({
          host: name,
          tool,
          detail: dropped.detail,
          ...(seen.runId === undefined ? {} : { run_id: seen.runId })
        })
    // A read whose session closed is sent once more, on a new session; nothing else ever is.
    const again = (dropped: Dropped): Effect.Effect<CallToolResult, Failure> =>
      options.resend && dropped.closed
        ? Effect.mapError(once, (error): Failure =>
          isDropped(error)
            ? new HostLost({ host: name, detail: `${dropped.detail}, and again when sent once more` })
            : error)
        : Effect.fail(lost(dropped))
    return yield* Effect.catchIf(once, isDropped, again)
  })

/** A remote host's state as its slot says. */
const hostState = (host: RemoteHostEntry, slot: Slot): HostState => {
  switch (slot.state) {
    case "connected":
      return {
        host: host.name,
        state: "connected",
        version: slot.session.version,
        ...(slot.session.instructions === undefined ? {} : { instructions: slot.session.instructions }),
        tools: slot.session.tools.size
      }
    case "unreachable":
      return {
        host: host.name,
        state: "unreachable",
        last_error: slot.error,
        failures: slot.failures,
        next_try_at: new Date(slot.nextTryAt).toISOString()
      }
    case "idle":
      return {
        host: host.name,
        state: "not_connected",
        ...(slot.lastError === undefined ? {} : { last_error: slot.lastError })
      }
    default:
      return { host: host.name, state: "not_connected" }
  }
}

/** Closes every session, kept or still starting. */
const closeAll = (slots: Map<string, Slot>) =>
  Effect.promise(() =>
    Promise.all([...slots.values()].map((slot) =>
      slot.state === "connected"
        ? slot.session.client.close().catch(() => undefined)
        : slot.state === "connecting"
        ? slot.ready.then((session) => session.client.close(), () => undefined).catch(() => undefined)
        : undefined
    ))
  )

/**
 * The hosts of `table`, each reached through the links HostSessions opens; the pings run at a third
 * of the link timeout, which the host's server keeps as its idle limit.
 */
export const layer = (
  table: HostTable | undefined,
  linkTimeoutSeconds: number = defaultLinkTimeoutSeconds
): Layer.Layer<Hosts, never, HostSessions> =>
  Layer.effect(
    Hosts,
    Effect.gen(function*() {
      const clock = yield* Clock.Clock
      const sessions = yield* HostSessions
      const now = () => clock.currentTimeMillisUnsafe()
      const remotes = table?.remotes ?? []
      const slots = new Map<string, Slot>(remotes.map((host) => [host.name, { state: "idle" }]))
      const names = remotes.map((host) => host.name)
      const known = [...(table?.local === true ? ["local"] : []), ...names]
      const aliveMs = keepAliveSeconds(linkTimeoutSeconds) * 1000
      const hub: Hub = { slots, now, sessions, aliveMs }

      const call = makeCall(hub, remotes, known)

      const states = Effect.sync((): ReadonlyArray<HostState> => [
        ...(table?.local === true ? [{ host: "local", state: "local" } as const] : []),
        ...remotes.map((host): HostState => hostState(host, slots.get(host.name)!))
      ])

      // Closing a session ends ssh's stdin: the host's server sees its client go and exits; tmux stays.
      yield* Effect.addFinalizer(() => closeAll(slots))
      return Hosts.of({ names, call, states })
    })
  )
