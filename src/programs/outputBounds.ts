/**
 * Shared output-bound parameters: every tool that returns terminal text takes the same two, with
 * the same ranges, and reports what it dropped.
 */
import * as Schema from "effect/Schema"
import { maxTextChars } from "../domain/bounds.ts"
import { usually } from "./usual.ts"

/** Default and ceiling of returned lines and bytes. */
export const outputLimits = {
  maxLines: 1_000,
  maxBytes: 256 * 1024,
  ceilingLines: 100_000,
  ceilingBytes: 4 * 1024 * 1024
} as const

/** `max_lines` and `max_bytes`, validated (> 0, bounded), optional. @category schemas */
export const boundFields = {
  max_lines: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: outputLimits.ceilingLines })).annotate({
      description: `newest lines kept (default ${outputLimits.maxLines})`
    })
  ),
  max_bytes: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: outputLimits.ceilingBytes })).annotate({
      description: `newest bytes kept (default ${outputLimits.maxBytes}; at most ${maxTextChars} characters as JSON)`
    })
  )
}

/** The truncation report fields of a bounded result. @category schemas */
export const truncationFields = {
  truncated_lines: usually(
    Schema.Int.annotate({
      description: "lines dropped from the start to respect max_lines/max_bytes and the size bound"
    }),
    0,
    "none"
  ),
  truncated_bytes: usually(Schema.Int.annotate({ description: "bytes dropped from the start" }), 0, "none")
}
