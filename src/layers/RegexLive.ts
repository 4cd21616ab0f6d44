/**
 * RE2 through re2js (a pure-JavaScript port: linear time, no native build). Literal patterns are
 * plain substring tests, so `[`, `*` and `\` in a literal match themselves.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { RE2JS } from "re2js"
import { maxPatternLength, PatternInvalid, Regex } from "../services/Regex.ts"

/** Compiles a pattern, or explains why it cannot be used. */
export const compile = (pattern: string, options: { readonly regex: boolean; readonly matchCase: boolean }) =>
  Effect.suspend(() => {
    if (pattern.length === 0) return Effect.fail(new PatternInvalid({ reason: "a pattern must not be empty" }))
    if (pattern.length > maxPatternLength) {
      return Effect.fail(new PatternInvalid({ reason: `a pattern may be at most ${maxPatternLength} characters` }))
    }
    if (!options.regex) {
      if (options.matchCase) return Effect.succeed((line: string) => line.includes(pattern))
      const needle = pattern.toLowerCase()
      return Effect.succeed((line: string) => line.toLowerCase().includes(needle))
    }
    return Effect.try({
      try: () => {
        const compiled = RE2JS.compile(pattern, options.matchCase ? 0 : RE2JS.CASE_INSENSITIVE)
        return (line: string) => compiled.test(line)
      },
      catch: (error) => new PatternInvalid({ reason: `${error instanceof Error ? error.message : String(error)} (RE2 syntax: no backreferences or lookaround)` })
    })
  })

/** The live engine. @category layers */
export const layer: Layer.Layer<Regex> = Layer.succeed(Regex, Regex.of({ compile }))
