/**
 * The audit record: one event per tool call, and one per operation of a batch. Payloads appear
 * only as length and keyed digest; results are never copied in.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** One audited tool call. @category models */
export interface AuditEvent {
  readonly tool: string
  /** The batch a nested call ran in. */
  readonly parent?: string
  readonly toolset: string
  readonly tmux_effect: ReadonlyArray<string>
  readonly process_reach: string
  readonly outcome: "ok" | "error"
  readonly error_tag?: string
  readonly duration_ms: number
  readonly client_id: string | undefined
  readonly request_id: string | number | undefined
  /** The tmux objects the call resolved or reached (pane, window, session IDs). */
  readonly targets: ReadonlyArray<string>
  /** The arguments, redacted by the tool's sink column. */
  readonly arguments: unknown
}

/** Where audit events go. @category services */
export class Audit extends Context.Service<Audit, {
  record(event: AuditEvent): Effect.Effect<void>
}>()("libtmux-mcp/services/Audit") {}
