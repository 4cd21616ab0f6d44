/**
 * The audit record's argument summary. Values that reach a shell, a pane's program or a process
 * (the row's sink column says which) appear only as their length and an HMAC-SHA256 digest under
 * a secret that lives as long as the server process: equal payloads correlate within one run,
 * but a short command cannot be looked up from its digest. Security: text the tool's schema did
 * not accept is the caller's text like any other, so it is digested too, names included: the
 * value of a parameter that failed to decode, every property the tool does not take (name and
 * value), an unknown tool's name. What the schema accepted stays readable (strings cut at 200
 * characters). Results are never part of the record.
 */
import { createHmac } from "node:crypto"
import type { SinkKind } from "../manifest/index.ts"
import type { BoundBroken } from "./argumentBounds.ts"

const payloadSinks: ReadonlySet<SinkKind> = new Set(["pane-input", "shell-command", "process-argv"])

/** Where the properties a tool does not take are listed, digested; no parameter can be named so. */
export const unknownPropertiesKey = "(unknown properties)"

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

/** The digest of any value: a string as it is, anything else as its JSON text. */
const digestValue = (secret: Buffer, value: unknown): Digest =>
  digest(secret, typeof value === "string" ? value : JSON.stringify(value) ?? String(value))

/**
 * What the tool's schema made of a call's arguments: its parameters (`sinks`), and those whose
 * values it refused (`"all"` when it refused the arguments as a whole, or has not decoded them).
 * @category models
 */
export interface Acceptance {
  readonly sinks: Readonly<Record<string, SinkKind>>
  readonly refused: ReadonlySet<string> | "all"
}

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
    // Accepted by the schema: inside a payload-bearing structure only target IDs stay readable.
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, summarize(secret, item, redact && !key.endsWith("_id"))])
    )
  }
  return value
}

/** The properties a tool does not take, name and value digested (at most 32). */
const unknownProperties = (secret: Buffer, entries: ReadonlyArray<readonly [string, unknown]>) =>
  entries.length === 0 ? {} : {
    [unknownPropertiesKey]: entries.slice(0, 32).map(([key, value]) => ({
      name: digest(secret, key),
      value: digestValue(secret, value)
    }))
  }

/** The redacted summary of a call's raw arguments, by what the tool's schema accepted of them. */
export const summarizeArguments = (secret: Buffer, acceptance: Acceptance, args: unknown): unknown => {
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return typeof args === "undefined"
      ? {}
      : { invalid: typeof args }
  }
  const entries = Object.entries(args)
  const known = entries.filter(([key]) => Object.hasOwn(acceptance.sinks, key))
  return {
    ...Object.fromEntries(known.map(([key, value]) => [
      key,
      acceptance.refused === "all" || acceptance.refused.has(key)
        ? digestValue(secret, value)
        : summarize(secret, value, payloadSinks.has(acceptance.sinks[key]!))
    ])),
    ...unknownProperties(secret, entries.filter(([key]) => !Object.hasOwn(acceptance.sinks, key)))
  }
}

/**
 * Where the record says arguments were refused unread, over the bounds (argumentBounds.ts); no
 * parameter can be named so.
 */
export const overBoundsKey = "(over the bounds)"

/** The summary of arguments refused unread: which bound they broke, and nothing of them. */
export const unreadSummary = (broken: BoundBroken): unknown => ({ [overBoundsKey]: broken })

const targetId = /^[$@%]\d{1,10}$/u

/**
 * Arguments no schema has checked yet (a batch operation's, decoded later by its own call): known
 * names stay, numbers and booleans stay, a target ID under a `*_id` parameter stays; any other
 * value is digested, and unknown properties as in `summarizeArguments`.
 */
const summarizeUnchecked = (secret: Buffer, sinks: Readonly<Record<string, SinkKind>>, args: unknown): unknown => {
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return typeof args === "undefined" ? {} : { invalid: typeof args }
  }
  const entries = Object.entries(args)
  return {
    ...Object.fromEntries(
      entries.filter(([key]) => Object.hasOwn(sinks, key)).map(([key, value]) => [
        key,
        typeof value === "number" || typeof value === "boolean" || value === null ||
          (key.endsWith("_id") && typeof value === "string" && targetId.test(value) && !payloadSinks.has(sinks[key]!))
          ? value
          : digestValue(secret, value)
      ])
    ),
    ...unknownProperties(secret, entries.filter(([key]) => !Object.hasOwn(sinks, key)))
  }
}

/** Stands for a tool name that is not a known tool's, which the record shows only digested. */
export const unknownTool = "(unknown)"

/** A tool name as the record shows it: a known one as it is, anything else digested. */
export const toolNameOf = (
  secret: Buffer,
  name: unknown,
  isToolName: (name: string) => boolean
): { readonly tool: string; readonly tool_digest?: Digest } =>
  typeof name === "string" && isToolName(name)
    ? { tool: name }
    : { tool: unknownTool, tool_digest: digestValue(secret, name) }

/**
 * A batch's summary: its own arguments as `summarizeArguments` shows them; each operation's tool
 * name when it is a known tool (else digested), its `arguments` by the parameters of that tool
 * (`sinksOf`, see `summarizeUnchecked`): each operation's own record then shows what its schema
 * accepted.
 */
export const summarizeBatchArguments = (
  secret: Buffer,
  acceptance: Acceptance,
  sinksOf: (tool: unknown) => Readonly<Record<string, SinkKind>>,
  isToolName: (name: string) => boolean,
  args: unknown
): unknown => {
  const operations = (args as { operations?: unknown } | null)?.operations
  if (typeof args !== "object" || args === null || !Array.isArray(operations)) {
    return summarizeArguments(secret, acceptance, args)
  }
  const summary = summarizeArguments(secret, { ...acceptance, refused: withoutOperations(acceptance.refused) }, args)
  return {
    ...(summary as object),
    operations: operations.slice(0, 32).map((operation: unknown) => {
      if (operation === null || typeof operation !== "object" || Array.isArray(operation)) {
        return digestValue(secret, operation)
      }
      const { arguments: inner, tool, ...rest } = operation as Record<string, unknown>
      return {
        ...("tool" in operation ? toolNameOf(secret, tool, isToolName) : {}),
        ...("arguments" in operation ? { arguments: summarizeUnchecked(secret, sinksOf(tool), inner) } : {}),
        ...unknownProperties(secret, Object.entries(rest))
      }
    })
  }
}

// The operations are summarized one by one whatever the batch's decoding said of them.
const withoutOperations = (refused: Acceptance["refused"]): Acceptance["refused"] =>
  refused === "all" ? "all" : new Set([...refused].filter((key) => key !== "operations"))
