/**
 * The live audit sink: one JSON line per event, on stderr (stdout carries only JSON-RPC), or
 * appended to the file LIBTMUX_AUDIT_LOG names (created with mode 0600). Writes are synchronous,
 * so nothing is lost when the process exits.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { closeSync, openSync, writeSync } from "node:fs"
import { Audit, type AuditEvent } from "../services/Audit.ts"

/** Opens the audit file for appending, creating it owner-only; throws when it cannot. */
export const openAuditFile = (path: string): number => openSync(path, "a", 0o600)

/** Audit events as JSON lines on a file descriptor (2 for stderr). @category layers */
export const layer = (fd: number): Layer.Layer<Audit> =>
  Layer.effect(
    Audit,
    Effect.acquireRelease(Effect.succeed(fd), (open) => Effect.sync(() => open === 2 ? undefined : closeSync(open))).pipe(
      Effect.map((open) =>
        Audit.of({
          record: (event: AuditEvent) => Effect.sync(() => void writeSync(open, `${JSON.stringify({ event: "tool_call", time: new Date().toISOString(), ...event })}\n`))
        })
      )
    )
  )
