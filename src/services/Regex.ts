/**
 * Bounded-time matching. Caller-supplied patterns run only through this service, whose live
 * implementation is RE2 (linear time in the input, no backtracking), and only within a length cap:
 * a cap alone is not a time ceiling and is never claimed to be one.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** The longest pattern accepted. */
export const maxPatternLength = 512

/** A pattern that did not compile, or was too long. @category errors */
export class PatternInvalid extends Schema.TaggedError<PatternInvalid>()("PatternInvalid", {
  reason: Schema.String
}) {
  override get message() {
    return `invalid pattern: ${this.reason}`
  }
}

/** How to match. @category models */
export interface MatchOptions {
  /** RE2 syntax when true; otherwise the pattern is literal text. */
  readonly regex: boolean
  readonly matchCase: boolean
}

/** A compiled matcher: whether a line contains a match. @category models */
export type LineMatcher = (line: string) => boolean

/** The matching engine. @category services */
export class Regex extends Context.Service<Regex, {
  compile(pattern: string, options: MatchOptions): Effect.Effect<LineMatcher, PatternInvalid>
}>()("libtmux-mcp/services/Regex") {}
