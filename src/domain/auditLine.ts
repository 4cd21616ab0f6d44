/**
 * One audit record as one JSON line of at most 4,096 bytes. A pipe takes a write of up to PIPE_BUF
 * (4,096 bytes on Linux) in one piece or not at all, so a record that fits is never torn and never
 * interleaved with another writer's output. A record that does not fit is shortened in steps: its
 * arguments become a hash of their (already redacted) summary, then long strings and lists are
 * cut, and last only the event, the process's tag, call number, time and tool remain.
 */
import { createHash } from "node:crypto"

/** The longest audit line in bytes, newline included. */
export const maxAuditLineBytes = 4096

const lineOf = (record: Readonly<Record<string, unknown>>): string => `${JSON.stringify(record)}\n`

const fits = (line: string): boolean => Buffer.byteLength(line, "utf8") <= maxAuditLineBytes

const cutText = (text: string, length: number): string =>
  text.length > length ? `${text.slice(0, length)}...<cut>` : text

const cutValue = (value: unknown): unknown => {
  if (typeof value === "string") return cutText(value, 64)
  if (Array.isArray(value)) {
    return value.length > 16
      ? [...value.slice(0, 16).map(cutValue), `...<cut ${value.length - 16}>`]
      : value.map(cutValue)
  }
  return value
}

/** The record as a JSON line that one write can take whole. */
export const auditLine = (record: Readonly<Record<string, unknown>>): string => {
  const whole = lineOf(record)
  if (fits(whole)) return whole
  const summary = JSON.stringify(record.arguments ?? null)
  const hashed = "arguments" in record
    ? {
      ...record,
      arguments: {
        cut: true,
        length: summary.length,
        sha256: createHash("sha256").update(summary).digest("hex").slice(0, 16)
      }
    }
    : record
  const withoutArguments = lineOf(hashed)
  if (fits(withoutArguments)) return withoutArguments
  const shortened = lineOf(Object.fromEntries(Object.entries(hashed).map(([key, value]) => [key, cutValue(value)])))
  if (fits(shortened)) return shortened
  // 64 characters escape to at most 384 bytes: this always fits.
  return lineOf({
    event: record.event,
    instance: record.instance,
    call: record.call,
    time: record.time,
    tool: cutValue(String(record.tool)),
    cut: true,
    bytes: Buffer.byteLength(whole, "utf8")
  })
}
