/**
 * The hosts of a hub: one kept MCP session per declared host, to this same server running there,
 * over `ssh -T`. Started at a host's first call, replaced at the next call after it drops, closed at
 * shutdown; each host's state is its own, so a host that is down or hung holds only its own calls.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type {
  HostAnswerRefused,
  HostCallFailed,
  HostLost,
  HostToolMissing,
  HostUnknown,
  HostUnreachable,
  OutcomeUnknown
} from "./errors.ts"
import type { ProgressSink } from "./Progress.ts"

/** What is known of one host, for get_server_info. @category models */
export type HostState =
  | { readonly host: string; readonly state: "local" }
  | { readonly host: string; readonly state: "not_connected"; readonly last_error?: string }
  | {
    readonly host: string
    readonly state: "connected"
    readonly version: string
    /** The first line of the host server's instructions (it names the socket there). */
    readonly instructions?: string
    readonly tools: number
  }
  | {
    readonly host: string
    readonly state: "unreachable"
    readonly last_error: string
    /** Connects that failed in a row. */
    readonly failures: number
    /** Until then calls fail at once with last_error; the first call after it tries again. */
    readonly next_try_at: string
  }

/** How a forwarded call is made. @category models */
export interface ForwardOptions {
  /** The time the call has left, connect included, in milliseconds. */
  readonly timeoutMs: number
  /** The hub's call ID, which the host's audit records. */
  readonly callId: string
  /**
   * Whether the call is a read sent once more when its session drops (domain/hostLink.ts
   * `resendable`); lost, it answers HostLost. Any other lost call answers OutcomeUnknown.
   */
  readonly resend: boolean
  readonly progress?: ProgressSink | undefined
}

/** The hub's hosts. @category services */
export class Hosts extends Context.Service<Hosts, {
  /** The remote hosts' names; empty without a hub. */
  readonly names: ReadonlyArray<string>
  /** Forwards one call to the host's server; interrupting it cancels the call there. */
  call(
    host: string,
    tool: string,
    args: Readonly<Record<string, unknown>>,
    options: ForwardOptions
  ): Effect.Effect<
    CallToolResult,
    HostUnknown | HostUnreachable | HostLost | OutcomeUnknown | HostToolMissing | HostCallFailed | HostAnswerRefused
  >
  readonly states: Effect.Effect<ReadonlyArray<HostState>>
}>()("libtmux-mcp/services/Hosts") {}

/** The `_meta` key carrying the hub's call ID to the host's audit. */
export const hubCallMetaKey = "com.git-pull.libtmux-mcp/hub-call"
