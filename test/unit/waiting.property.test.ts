/**
 * The progress ticker of the waiting tools (wait_for_channel, run_shell_command) under TestClock:
 * for any call length, reports come about once a second, never faster, and stop with the call.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import { withProgress } from "../../src/programs/waiting.ts"
import { Progress } from "../../src/services/Progress.ts"
import { checkProperty } from "../support/property.ts"

const CallLength = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 120_000 }))

const now = Effect.clockWith((clock) => clock.currentTimeMillis)

const rateIsBounded = (ticking: typeof withProgress) => (lengthMs: number) =>
  Effect.gen(function*() {
    const reports: Array<{ readonly at: number; readonly progress: number }> = []
    const reporter = {
      progress: (progress: number) => Effect.asVoid(Effect.map(now, (at) => reports.push({ at, progress })))
    }
    const fiber = yield* Effect.forkChild(
      ticking(30, "waiting", Effect.sleep(lengthMs)).pipe(Effect.provideService(Progress, reporter))
    )
    yield* TestClock.adjust(lengthMs)
    yield* Fiber.join(fiber)
    const during = reports.length
    yield* TestClock.adjust(5_000)
    assert.strictEqual(reports.length, during, "reports after the call ended")
    reports.forEach(({ at, progress }, i) => {
      if (i > 0) assert.isAtLeast(at - reports[i - 1]!.at, 1_000, "two reports less than a second apart")
      assert.strictEqual(progress, at / 1_000, "progress is the seconds waited")
    })
    assert.isAtMost(reports.length, Math.floor(lengthMs / 1_000) + 1)
    assert.isAtLeast(reports.length, Math.floor(lengthMs / 1_000), "a second passed without a report")
  })

/** A ticker that reports ten times a second: what the property must catch. */
const hasty: typeof withProgress = (total, label, wait) =>
  Effect.gen(function*() {
    const reporter = yield* Progress
    const ticker = yield* Effect.forkChild(
      Effect.forever(
        Effect.andThen(reporter.progress(0, total, typeof label === "string" ? label : label()), Effect.sleep(100))
      )
    )
    return yield* wait.pipe(Effect.ensuring(Fiber.interrupt(ticker)))
  })

describe("withProgress", () => {
  it.effect.prop(
    "reports about once a second for any call length, and stops with the call",
    [CallLength],
    ([lengthMs]) => rateIsBounded(withProgress)(lengthMs),
    { arbitrary: { runs: 50 } }
  )

  it.effect("the property catches a ticker that reports too often", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* checkProperty(CallLength, rateIsBounded(hasty), 20), "Falsified")
    }))
})
