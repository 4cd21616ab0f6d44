/**
 * The audit record's argument summary. Values that reach a shell, a pane's program or a process
 * (the row's sink column says which) appear only as their length and an HMAC-SHA256 digest under
 * a secret that lives as long as the server process: equal payloads correlate within one run,
 * but a short command cannot be looked up from its digest. Other strings are kept, cut at 200
 * characters. Results are never part of the record.
 */
import { createHmac } from "node:crypto"
import type { SinkKind } from "../manifest/index.ts"

const payloadSinks: ReadonlySet<SinkKind> = new Set(["pane-input", "shell-command", "process-argv"])

/** A payload as the record shows it. @category models */
export interface Digest {
  readonly length: number
  readonly hmac: string
}

/** The keyed digest of one payload. */
export const digest = (secret: Buffer, value: string): Digest => ({
  length: value.length,
  hmac: createHmac("sha256", secret).update(value).digest("hex").slice(0, 16)
})

const summarize = (secret: Buffer, value: unknown, redact: boolean): unknown => {
  if (typeof value === "string") {
    return redact
      ? digest(secret, value)
      : value.length > 200
      ? `${value.slice(0, 200)}...<cut>`
      : value
  }
  if (Array.isArray(value)) return value.slice(0, 32).map((item) => summarize(secret, item, redact))
  if (value !== null && typeof value === "object") {
    // Inside a payload-bearing structure only target IDs stay readable.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, summarize(secret, item, redact && !key.endsWith("_id"))])
    )
  }
  return value
}

/** The redacted summary of a call's raw arguments, by the tool's sink column. */
export const summarizeArguments = (
  secret: Buffer,
  sinks: Readonly<Record<string, SinkKind>>,
  args: unknown
): unknown => {
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return typeof args === "undefined"
      ? {}
      : { invalid: typeof args }
  }
  return Object.fromEntries(
    Object.entries(args).map((
      [key, value]
    ) => [key, summarize(secret, value, payloadSinks.has(sinks[key] ?? "pane-input"))])
  )
}

/**
 * A batch's summary: each operation's `arguments` is redacted by the sink column of the tool the
 * operation names (`sinksOf`), exactly as that operation's own record redacts it; any other key of
 * an operation is digested.
 */
export const summarizeBatchArguments = (
  secret: Buffer,
  sinks: Readonly<Record<string, SinkKind>>,
  sinksOf: (tool: unknown) => Readonly<Record<string, SinkKind>>,
  args: unknown
): unknown => {
  const summary = summarizeArguments(secret, sinks, args)
  if (args === null || typeof args !== "object" || !Array.isArray((args as { operations?: unknown }).operations)) {
    return summary
  }
  const operations = (args as { operations: ReadonlyArray<unknown> }).operations.slice(0, 32).map((operation) => {
    if (operation === null || typeof operation !== "object" || Array.isArray(operation)) {
      return summarize(secret, operation, true)
    }
    const tool = (operation as { tool?: unknown }).tool
    return Object.fromEntries(
      Object.entries(operation).map(([key, value]) => [
        key,
        key === "tool"
          ? summarize(secret, value, false)
          : key === "arguments"
          ? summarizeArguments(secret, sinksOf(tool), value)
          : summarize(secret, value, true)
      ])
    )
  })
  return { ...(summary as object), operations }
}
