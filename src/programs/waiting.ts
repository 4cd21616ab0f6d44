/**
 * What the waiting tools share: the `timeout` parameter, clamped to the server's ceiling, and
 * progress reports about once a second while they wait.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { Config } from "../services/Config.ts"
import { Progress } from "../services/Progress.ts"

/** A wait's timeout when the call gives none, in seconds. */
export const defaultTimeout = 30

/** The optional `timeout` of a waiting tool, in seconds. @category schemas */
export const timeoutField = Schema.optionalKey(
  Schema.Finite.check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(86_400)).annotate({
    description: `seconds (default ${defaultTimeout}; at most the server's ceiling)`
  })
)

/**
 * The timeout actually used: the request (default 30 s) clamped to the ceiling, in seconds. The
 * clock counts milliseconds, so a shorter request is one millisecond: a deadline is then always
 * after the moment it was set (a tiny timeout added to the time would leave the time unchanged).
 */
export const effectiveTimeout = (requested: number | undefined) =>
  Config.useSync(({ config }) => Math.max(0.001, Math.min(requested ?? defaultTimeout, config.waitMaxSeconds)))

/** A waiting tool's `effective_timeout` result field: present only when the ceiling cut the timeout asked for. */
export const effectiveTimeoutField = Schema.optionalKey(Schema.Finite.annotate({
  description: "present when the ceiling cut the timeout asked for: the timeout used, in seconds"
}))

/** The `effective_timeout` of a result: only when `used` is not what the call asked for. */
export const reportedTimeout = (requested: number | undefined, used: number): { readonly effective_timeout?: number } =>
  used === (requested ?? defaultTimeout) ? {} : { effective_timeout: used }

/**
 * Runs `wait` while reporting progress about once a second; a label that changes is read at each
 * report. The first report waits for `first` (at most a second), so that it can carry what is known by then;
 * `meta`, read at each report too, goes into its `_meta`.
 */
export const withProgress = <A, E, R>(
  total: number,
  label: string | (() => string),
  wait: Effect.Effect<A, E, R>,
  first: Effect.Effect<void> = Effect.void,
  meta: () => Readonly<Record<string, string>> | undefined = () => undefined
) =>
  Effect.gen(function*() {
    const reporter = yield* Progress
    const started = yield* Clock.currentTimeMillis
    const ticker = yield* Effect.forkChild(Effect.andThen(
      Effect.timeoutOption(first, 1000),
      Effect.gen(function*() {
        const elapsed = ((yield* Clock.currentTimeMillis) - started) / 1000
        yield* reporter.progress(
          elapsed,
          total,
          `${typeof label === "string" ? label : label()}: ${elapsed.toFixed(0)}s of ${total}s`,
          meta()
        )
      }).pipe(Effect.repeat(Schedule.spaced("1 second")))
    ))
    return yield* wait.pipe(Effect.ensuring(Fiber.interrupt(ticker)))
  })
