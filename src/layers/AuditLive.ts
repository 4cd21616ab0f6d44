/**
 * The live audit sink: one JSON line per tool call on stderr (stdout carries only JSON-RPC).
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Audit, type AuditEvent } from "../services/Audit.ts"

/** Audit events as JSON lines on stderr. @category layers */
export const layer: Layer.Layer<Audit> = Layer.succeed(
  Audit,
  Audit.of({
    record: (event: AuditEvent) => Effect.sync(() => process.stderr.write(`${JSON.stringify({ event: "tool_call", ...event })}\n`))
  })
)
