/**
 * Waiting for the creation lock, on virtual time, against a scripted holder: for any time the
 * holder lets go and any cost per attempt (a holder that accepts and never answers costs 500 ms),
 * the lock is taken exactly when an attempt starts after the release and before the deadline,
 * and the wait never outlasts the deadline by more than an attempt and a retry interval.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import { type Attempt, creationLockTimings, takeWithin } from "../../src/platform/Lease.ts"
import { checkProperty } from "../support/property.ts"

const Holder = Schema.Struct({
  releasedAtMs: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 8_000 })),
  attemptMs: Schema.Literals([0, 1, 30, 500]),
  /** The lock folder becomes unusable at this time (never when past the end). */
  unusableAtMs: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 20_000 }))
})
type Holder = typeof Holder.Type

const now = Effect.clockWith((clock) => clock.currentTimeMillis)

/** One attempt against the scripted holder, taking `attemptMs`; records when each one started. */
const attemptOn = (holder: Holder, starts: Array<number>): Effect.Effect<Attempt<string>> =>
  Effect.gen(function*() {
    const at = yield* now
    starts.push(at)
    yield* Effect.sleep(holder.attemptMs)
    if (at >= holder.unusableAtMs) return { unavailable: "the lock folder went away" }
    return at >= holder.releasedAtMs ? { held: "lock" } : { holder: "pid 1 (libtmux-mcp 0.1.0)" }
  })

type Take = typeof takeWithin<string>

const takesExactlyWhenFree = (take: Take) => (holder: Holder) =>
  Effect.gen(function*() {
    const { waitMs } = creationLockTimings
    const starts: Array<number> = []
    const fiber = yield* Effect.forkChild(take(attemptOn(holder, starts)))
    yield* TestClock.adjust(waitMs + holder.attemptMs + creationLockTimings.retryMs)
    assert.isDefined(fiber.pollUnsafe(), "still waiting an attempt and a retry past the deadline")
    const result = yield* Fiber.join(fiber)
    // What the attempts saw, in order: the first that is not "held by another" decides.
    const deciding = starts.find((at) => at >= holder.releasedAtMs || at >= holder.unusableAtMs)
    const shouldHold = deciding !== undefined && deciding < holder.unusableAtMs
    assert.strictEqual(result !== undefined, shouldHold, `attempts at ${starts.join(", ")}`)
    // Retries keep coming until the deadline: a release before it is never missed by more than a retry.
    const freeBefore = Math.min(holder.releasedAtMs, holder.unusableAtMs)
    if (freeBefore + holder.attemptMs + creationLockTimings.retryMs < waitMs) {
      assert.isDefined(deciding, "gave up before the deadline")
    }
    assert.isTrue(
      starts.every((at) => at < waitMs),
      "an attempt started after the deadline"
    )
  })

/** Five attempts and no deadline: what the comment in Lease.ts warns against. */
const counted: Take = (attempt) =>
  Effect.gen(function*() {
    for (let i = 0; i < 5; i++) {
      const result = yield* attempt
      if ("held" in result) return result
      if ("unavailable" in result) return undefined
      yield* Effect.sleep(creationLockTimings.retryMs)
    }
    return undefined
  })

describe("waiting for the creation lock", () => {
  it.effect.prop(
    "takes the lock exactly when it is free before the deadline, and ends by then",
    [Holder],
    ([holder]) => takesExactlyWhenFree(takeWithin)(holder),
    { arbitrary: { runs: 100 } }
  )

  it.effect("the property catches a wait that counts attempts instead of keeping a deadline", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* checkProperty(Holder, takesExactlyWhenFree(counted), 100), "Falsified")
    }))
})
