/**
 * Bounded-time matching. Caller-supplied patterns run only through this service, whose live
 * implementation is RE2 (linear time in the input, no backtracking) within three bounds: a length
 * cap, a cap on the compiled program (the constant of that linear time: a pattern of 496 characters
 * can compile to 110,000 instructions, each stepped for every character), and a time budget for each
 * matching job, which runs off the event loop so that no pattern can delay other calls.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** The longest pattern accepted. */
export const maxPatternLength = 512

/** The largest compiled RE2 program accepted, in instructions (`x{0,999}` is about 2,000). */
export const maxProgramSize = 2_000

/** The longest one call spends matching regular expressions, in total. */
export const matchBudgetMs = 10_000

/** A pattern that did not compile, was too long, or compiled to too large a program. @category errors */
export class PatternInvalid extends Schema.TaggedError<PatternInvalid>()("PatternInvalid", {
  reason: Schema.String
}) {
  override get message() {
    return `invalid pattern: ${this.reason}`
  }
}

/** Matching that ran past its time budget or its memory limit, and was stopped. @category errors */
export class PatternTooCostly extends Schema.TaggedError<PatternTooCostly>()("PatternTooCostly", {
  reason: Schema.String
}) {
  override get message() {
    return `pattern too costly: ${this.reason}, and was stopped; match literal text (regex false), simplify the ` +
      "expression (fewer and smaller repetitions), or search less text (fewer panes or history_lines)"
  }
}

/** How to match. @category models */
export interface MatchOptions {
  /** RE2 syntax when true; otherwise the pattern is literal text. */
  readonly regex: boolean
  readonly matchCase: boolean
}

/** Compiled patterns, tried in order. @category models */
export interface LineMatcher {
  /**
   * For each line, the index of the first pattern that matches it, or -1. Fails when matching takes
   * longer than `budgetMs`; interrupting it stops the matching.
   */
  readonly firstMatches: (
    lines: ReadonlyArray<string>,
    budgetMs: number
  ) => Effect.Effect<ReadonlyArray<number>, PatternTooCostly>
}

/** The matching engine. @category services */
export class Regex extends Context.Service<Regex, {
  compile(patterns: ReadonlyArray<string>, options: MatchOptions): Effect.Effect<LineMatcher, PatternInvalid>
}>()("libtmux-mcp/services/Regex") {}
