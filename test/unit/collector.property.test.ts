/**
 * The garbage-collection policy between calls, on virtual time: for any pattern of calls (gaps,
 * lengths, overlaps, what each allocates), a collection never runs while a call does, nor before the
 * heap has grown 2 MB since the last; it runs at most every two seconds while calls keep ending,
 * otherwise only after a second without one; and a second after the calls stop, one has run if the
 * heap grew that much.
 */
import { assert, describe, it, prop } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { collectorTimings, makeCollector } from "../../src/domain/collector.ts"
import { checkProperty } from "../support/property.ts"

const Calls = Schema.Array(Schema.Struct({
  /** After the previous call started. */
  gapMs: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 3_000 })),
  lengthMs: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 3_000 })),
  /** What the call leaves on the heap, in KiB. */
  allocatesKiB: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 3_000 }))
})).check(Schema.isMaxLength(30))
type Calls = typeof Calls.Type

/** Runs the calls against a collector on a virtual clock; returns the call spans, the ends and the collections. */
const simulate = (calls: Calls, timings = collectorTimings) => {
  let now = 0
  let sequence = 0
  const queue: Array<{ at: number; order: number; run: () => void; cancelled: boolean }> = []
  const schedule = (at: number, run: () => void) => {
    const event = { at, order: sequence++, run, cancelled: false }
    queue.push(event)
    return event
  }
  const collections: Array<{ at: number; grown: number }> = []
  const spans: Array<{ start: number; end: number }> = []
  // The heap in use, and what it was after the last collection (which frees all the calls left).
  let heap = 0
  let heapAfter = 0
  const collector = makeCollector({
    now: () => now,
    heapUsed: () => heap,
    later: (run, ms) => {
      const event = schedule(now + ms, run)
      return { cancel: () => void (event.cancelled = true) }
    },
    afterResponse: (run) => void schedule(now, run),
    collect: () => {
      collections.push({ at: now, grown: heap - heapAfter })
      heap = 0
      heapAfter = 0
    }
  }, timings)
  const running = () => spans.some(({ start, end }) => start <= now && now < end)
  let start = 0
  for (const { gapMs, lengthMs, allocatesKiB } of calls) {
    start += gapMs
    spans.push({ start, end: start + lengthMs })
    schedule(start + lengthMs, () => {
      heap += allocatesKiB * 1024
      collector(running)
    })
  }
  while (queue.length > 0) {
    queue.sort((a, b) => a.at - b.at || a.order - b.order)
    const event = queue.shift()!
    now = event.at
    if (!event.cancelled) event.run()
  }
  return { spans, ends: spans.map(({ end }) => end), collections, left: heap }
}

const keepsItsPromises = (timings = collectorTimings) => (calls: Calls) => {
  const { spans, ends, collections, left } = simulate(calls, timings)
  const { spacingMs, idleMs, growthBytes } = collectorTimings
  let previous = 0
  for (const { at, grown } of collections) {
    assert.isAtLeast(grown, growthBytes, `collected at ${at} with the heap grown only ${grown} bytes`)
    assert.isFalse(spans.some(({ start, end }) => start <= at && at < end), `collected at ${at} while a call ran`)
    const idle = !ends.some((end) => end > at - idleMs && end <= at)
    assert.isTrue(
      at - previous > spacingMs || idle,
      `collected at ${at}, ${at - previous} ms after the last, while calls kept ending`
    )
    previous = at
  }
  // Once the calls stop, a collection follows within the idle time, unless the heap grew too little since the last.
  const last = Math.max(0, ...spans.map(({ end }) => end))
  if (spans.length > 0 && left >= growthBytes) {
    assert.fail(`the heap was left ${left} bytes grown after the last call ended at ${last}`)
  }
  if (spans.length > 0 && collections.some(({ at }) => at >= last)) {
    assert.isTrue(
      collections.some(({ at }) => at >= last && at <= last + idleMs),
      `the collection after the last call ended at ${last} came later than the idle time`
    )
  }
}

describe("garbage collection between calls", () => {
  prop(
    "never during a call nor before the heap grew, at most every two seconds while calls keep ending, " +
      "and once idle for a second",
    [Calls],
    ([calls]) => keepsItsPromises()(calls),
    { arbitrary: { runs: 100 } }
  )

  it("collects once when two calls end at the same moment past the spacing", () => {
    keepsItsPromises()([{ gapMs: 0, lengthMs: 2989, allocatesKiB: 2048 }, {
      gapMs: 2989,
      lengthMs: 0,
      allocatesKiB: 1
    }])
  })

  it.effect("the property catches a collector without spacing, and one that does not wait for idleness", () =>
    Effect.gen(function*() {
      const check = (timings: typeof collectorTimings) =>
        checkProperty(Calls, (calls) => Effect.sync(() => keepsItsPromises(timings)(calls)), 100)
      assert.strictEqual(yield* check({ ...collectorTimings, spacingMs: 0 }), "Falsified")
      assert.strictEqual(yield* check({ ...collectorTimings, idleMs: 300 }), "Falsified")
      assert.strictEqual(yield* check({ ...collectorTimings, growthBytes: 0 }), "Falsified")
      assert.strictEqual(yield* check({ ...collectorTimings, growthBytes: 64 * 1024 * 1024 }), "Falsified")
    }))
})
