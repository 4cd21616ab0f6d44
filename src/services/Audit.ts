/**
 * The audit record: one event per tool call. Results and payloads are never copied in.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** One audited tool call. @category models */
export interface AuditEvent {
  readonly tool: string
  /** The batch a nested call ran in. */
  readonly parent?: string
  readonly outcome: "ok" | "error"
  readonly error_tag?: string
  /** The panes an input actually reached, when a tool reports them (`targets` in its result). */
  readonly targets?: ReadonlyArray<string>
  readonly duration_ms: number
  readonly request_id: string | number | undefined
}

/** Where audit events go. @category services */
export class Audit extends Context.Service<Audit, {
  record(event: AuditEvent): Effect.Effect<void>
}>()("libtmux-mcp/services/Audit") {}
