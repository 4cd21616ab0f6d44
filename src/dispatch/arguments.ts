/**
 * What dispatch reads from a call's arguments and result before and after it acts: the decoding
 * (and what the schema accepted of them, for the audit's redaction), the tmux IDs they name, the
 * span's attributes. Pure.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import type * as SchemaIssue from "effect/SchemaIssue"
import type { Acceptance } from "../domain/redact.ts"
import { rowFor, type SinkKind } from "../manifest/index.ts"
import type { ToolDefinition } from "../tools/define.ts"

const decodeOptions = { onExcessProperty: "error", errors: "all" } as const

/** What a call's span is annotated with: the tool, and the pane and run its arguments name. */
export const spanAttributes = (name: string, args: unknown): Record<string, string> => {
  const given = typeof args === "object" && args !== null ? args as Record<string, unknown> : {}
  return {
    tool: name,
    ...(typeof given.pane_id === "string" ? { pane_id: given.pane_id } : {}),
    ...(typeof given.run_id === "string" ? { run_id: given.run_id } : {})
  }
}

/** The tmux IDs a result names: where the call acted. */
export const targetsOf = (structured: Readonly<Record<string, unknown>> | undefined): ReadonlyArray<string> => {
  if (structured === undefined) return []
  const ids = ["session_id", "window_id", "pane_id"].map((key) => structured[key]).filter((id): id is string =>
    typeof id === "string"
  )
  const reached = Array.isArray(structured.targets)
    ? structured.targets.filter((id): id is string => typeof id === "string")
    : []
  return [...new Set([...ids, ...reached])]
}

export const isToolName = (name: string): boolean => rowFor(name) !== undefined

/** The sink column of the tool a name stands for; none for an unknown name, so every value is digested. */
export const sinksOf = (name: unknown): Readonly<Record<string, SinkKind>> =>
  (typeof name === "string" ? rowFor(name)?.sinks : undefined) ?? {}

/** The tmux IDs that `*_id` arguments name, at any depth: the targets known before the call acts. */
export const targetsIn = (args: unknown): ReadonlyArray<string> => {
  const found = new Set<string>()
  const visit = (value: unknown, depth: number): void => {
    if (depth > 3 || value === null || typeof value !== "object") return
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === "string" && key.endsWith("_id") && /^[$@%]\d{1,10}$/u.test(item)) found.add(item)
      else visit(item, depth + 1)
    }
  }
  visit(args, 0)
  return [...found]
}

/**
 * The parameters whose values a decoding failure refused (the first step of each issue's path);
 * `"all"` when an issue concerns the arguments as a whole.
 */
const refusedBy = (issue: SchemaIssue.Issue): ReadonlySet<string> | "all" => {
  const keys = new Set<string>()
  let whole = false
  const visit = (current: SchemaIssue.Issue): void => {
    if (current._tag === "Composite") current.issues.forEach(visit)
    else if (current._tag === "Pointer" && current.path.length > 0) keys.add(String(current.path[0]))
    else if (current._tag === "Pointer") visit(current.issue)
    else whole = true
  }
  visit(issue)
  return whole ? "all" : keys
}

const acceptedAll: ReadonlySet<string> = new Set()

/** Decodes a call's arguments; says what the schema accepted of them either way. */
export const decodeArguments = (input: ToolDefinition["input"], sinks: Acceptance["sinks"], args: unknown) =>
  Effect.map(
    Effect.exit(Schema.decodeUnknownEffect(input, decodeOptions)(args ?? {})),
    (exit) => {
      const error = Exit.isFailure(exit) ? Option.getOrUndefined(Cause.findErrorOption(exit.cause)) : undefined
      const acceptance: Acceptance = {
        sinks,
        refused: Exit.isSuccess(exit) ? acceptedAll : error === undefined ? "all" : refusedBy(error.issue)
      }
      return { exit, acceptance }
    }
  )

/** The decoder's message in the caller's terms, with the properties the tool does take. */
export const decodeProblem = (definition: ToolDefinition, message: string): string => {
  const ast = definition.input.ast
  const properties = SchemaAST.isObjects(ast) ? ast.propertySignatures.map((signature) => String(signature.name)) : []
  const text = message.replaceAll("Expected no excess property", "Unknown property").replaceAll(
    "Expected never",
    "Unknown property"
  )
  return `${text}\n${
    properties.length === 0 ? "this tool takes no arguments" : `valid properties: ${properties.join(", ")}`
  }`
}
