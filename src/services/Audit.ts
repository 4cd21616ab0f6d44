/**
 * The audit record, written ahead: before a call acts, an intent record (tool, the targets its
 * arguments name, redacted arguments); after it, an outcome record, best effort. A call whose
 * intent record cannot be written does not act. Payloads appear only as length and keyed digest;
 * results are never copied in.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** What is known of a call before it acts. @category models */
export interface AuditIntent {
  readonly tool: string
  /** The batch a nested call runs in. */
  readonly parent?: string
  readonly toolset: string
  readonly tmux_effect: ReadonlyArray<string>
  readonly process_reach: string
  readonly client_id: string | undefined
  readonly request_id: string | number | undefined
  /** The tmux IDs the arguments name (the objects resolved later are in the outcome). */
  readonly targets: ReadonlyArray<string>
  /** The arguments, redacted by the tool's sink column. */
  readonly arguments: unknown
}

/** How a call ended, linked to its intent by `call`. @category models */
export interface AuditOutcome {
  readonly call: number
  readonly tool: string
  readonly outcome: "ok" | "error"
  readonly error_tag?: string
  readonly duration_ms: number
  /** The tmux objects the call resolved or reached (pane, window, session IDs). */
  readonly targets: ReadonlyArray<string>
}

/** A call refused before anything could run: an unknown tool, or one outside the selection. @category models */
export interface AuditRejection {
  /** The tool's name when it is a known tool's, else `(unknown)` and the name only as `tool_digest`. */
  readonly tool: string
  readonly tool_digest?: { readonly length: number; readonly hmac: string }
  readonly parent?: string
  readonly reason: "unknown" | "not_selected"
  readonly client_id: string | undefined
  readonly request_id: string | number | undefined
  readonly arguments: unknown
}

/** Where records go now. @category models */
export interface AuditStatus {
  readonly destination: "stderr" | "file"
  /** The file records go to, when they go to a file. */
  readonly path: string | null
  /** Where records move when stderr stays unwritable (stderr only). */
  readonly fallback_path: string | null
  /** When and why records moved from stderr to the fallback file. */
  readonly moved: { readonly time: string; readonly reason: string } | null
}

/** The intent record could not be written, so the call did nothing. @category errors */
export class AuditUnavailable extends Schema.TaggedError<AuditUnavailable>()("AuditUnavailable", {
  tool: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.tool} did nothing: its audit record could not be written (${this.reason}); ` +
      "no call acts without its record. Fix the audit destination (LIBTMUX_AUDIT_LOG, " +
      "or a client that reads the server's stderr) and call again"
  }
}

/** Where audit records go. @category services */
export class Audit extends Context.Service<Audit, {
  /** Writes the intent record, whole, before the call acts; returns the call's number. */
  intent(record: AuditIntent): Effect.Effect<number, AuditUnavailable>
  /** Writes the outcome record, best effort: it never fails. */
  outcome(record: AuditOutcome): Effect.Effect<void>
  /** Records a refused call, best effort. */
  rejection(record: AuditRejection): Effect.Effect<void>
  readonly status: Effect.Effect<AuditStatus>
}>()("libtmux-mcp/services/Audit") {}
