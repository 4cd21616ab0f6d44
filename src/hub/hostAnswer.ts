/**
 * A hub's reading of a host's result: decoded as the hub's own tool would have encoded it, so that
 * what the hub passes on is what it advertises, and a host's malformed result is an error the agent
 * can read. (The size of a host's message is bounded before this, as it is read: HostTransport.ts.)
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { HostAnswerRefused } from "../services/errors.ts"
import type { ToolDefinition } from "../tools/define.ts"

/** How much of the schema's complaint about a host's answer its refusal quotes. */
const complaintChars = 600

/**
 * A host's result decoded with the tool's output schema and encoded again, so what the hub passes
 * on is what its own schema says (a field it does not know is dropped); a result that does not fit
 * is refused with the schema's complaint, never passed on.
 */
export const hostAnswer = (host: string, definition: ToolDefinition, structured: unknown) =>
  structured === undefined
    ? Effect.fail(new HostAnswerRefused({ host, tool: definition.row.name, detail: "it holds no structured result" }))
    : decoded(host, definition, structured)

const decoded = (host: string, definition: ToolDefinition, structured: unknown) =>
  Schema.decodeUnknownEffect(definition.output)(structured).pipe(
    Effect.flatMap(Schema.encodeUnknownEffect(definition.output)),
    Effect.map((answer) => answer as Record<string, unknown>),
    Effect.mapError((error) => {
      const complaint = error.message.length > complaintChars
        ? `${error.message.slice(0, complaintChars)}...`
        : error.message
      return new HostAnswerRefused({
        host,
        tool: definition.row.name,
        detail: `it does not fit the tool's output schema (${complaint}); the server there may be another version`
      })
    })
  )
