/**
 * wait_for_text over generated timelines under TestClock: a scripted pane that is written to,
 * cleared, trimmed at its history limit, killed, or whose server goes away, read the way tmux
 * answers `capture-pane -S`. The expected outcome comes from what the pane holds at each poll,
 * not from row positions: matched exactly when a row written after the call began matches at a
 * poll before the deadline. Each property is also run against a broken wait, which it must catch.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import type { PaneId } from "../../src/domain/ids.ts"
import { pollIntervalMs, waitForText } from "../../src/programs/waitText.ts"
import { ServerNotRunning } from "../../src/services/errors.ts"
import { PaneReader, type PaneView } from "../../src/services/PaneReader.ts"
import { Progress } from "../../src/services/Progress.ts"
import type { LineMatcher } from "../../src/services/Regex.ts"
import { checkProperty } from "../support/property.ts"

const height = 4
const historyLimit = 20

const Text = Schema.Literals(["$", "MATCH", "x", "$ MATCH", ""])
const Event = Schema.Struct({
  at: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 500 })),
  does: Schema.Union([
    Schema.Struct({ write: Text }),
    Schema.Literals(["clear", "die", "server gone"])
  ])
})
const Timeline = Schema.Struct({
  /** What the pane held when the call began; the cursor is on its last row. */
  entry: Schema.Array(Text).check(Schema.isMinLength(1), Schema.isMaxLength(30)),
  events: Schema.Array(Event).check(Schema.isMaxLength(40)),
  timeoutMs: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_000 })),
  /**
   * Whether the content moves (clears, and trims at the history limit). Once rows move, a row is
   * known only by its text: a pane cleared and written again exactly as it was cannot be told
   * from one left alone. So moving timelines write distinct rows, and repeated text (a prompt
   * identical to an old one, printed again) is drawn in timelines that do not move.
   */
  moves: Schema.Boolean
})
type Timeline = typeof Timeline.Type

interface Row {
  readonly text: string
  readonly fresh: boolean
}
interface Pane {
  rows: Array<Row>
  dead: boolean
  gone: boolean
}

/** The pane as it is at `t`: rows scroll into history, which tmux trims a tenth at a time at its limit. */
const paneAt = (timeline: Timeline, t: number): Pane => {
  let serial = 0
  const text = (written: string) => timeline.moves ? `${written}#${serial++}` : written
  const pane: Pane = {
    rows: timeline.entry.map((written) => ({ text: text(written), fresh: false })),
    dead: false,
    gone: false
  }
  for (const { at, does } of [...timeline.events].sort((a, b) => a.at - b.at)) {
    if (at > t) break
    if (does === "clear") pane.rows = timeline.moves ? [] : pane.rows
    else if (does === "die") pane.dead = true
    else if (does === "server gone") pane.gone = true
    else if (!pane.dead) {
      if (timeline.moves && pane.rows.length - height >= historyLimit) {
        pane.rows.splice(0, Math.max(1, Math.floor(historyLimit / 10)))
      }
      pane.rows.push({ text: text(does.write), fresh: true })
    }
  }
  return pane
}

/** Reads the pane as the live reader does: `capture-pane -S` clamps its start row to the screen. */
const read = (pane: Pane, from: number | undefined): PaneView => {
  const history = Math.max(0, pane.rows.length - height)
  const cursorY = Math.max(0, pane.rows.length - 1 - history)
  const start = from === undefined ? cursorY : Math.max(from - history, -history)
  const top = history + Math.min(start, height - 1)
  const rows = pane.rows.slice(top).map((row) => row.text)
  while (rows.at(-1) === "") rows.pop()
  return { pid: 10, dead: pane.dead, alternate: false, historySize: history, cursorY, firstRow: history + start, rows }
}

const scriptedReader = (timeline: Timeline) =>
  PaneReader.of({
    read: (_pane, from) =>
      Effect.flatMap(Effect.clockWith((clock) => clock.currentTimeMillis), (now) => {
        const pane = paneAt(timeline, now)
        return pane.gone ? Effect.fail(new ServerNotRunning({ socket: "/test" })) : Effect.succeed(read(pane, from))
      })
  })

const matchesText: LineMatcher = {
  firstMatches: (lines) => Effect.succeed(lines.map((line) => line.includes("MATCH") ? 0 : -1))
}

/** What the call must end with: the first poll that sees a fresh match, a dead pane or no server, else the deadline. */
const expected = (timeline: Timeline): { readonly outcome: string; readonly atMs: number } => {
  for (let poll = 0;; poll = Math.min(poll + pollIntervalMs, timeline.timeoutMs)) {
    const pane = paneAt(timeline, poll)
    if (pane.gone) return { outcome: "ServerNotRunning", atMs: poll }
    if (pane.dead) return { outcome: "PaneGone", atMs: poll }
    if (pane.rows.some((row) => row.fresh && row.text.includes("MATCH"))) return { outcome: "matched", atMs: poll }
    if (poll >= timeline.timeoutMs) return { outcome: "timeout", atMs: poll }
  }
}

type Wait = typeof waitForText

const endsAsThePaneSays = (wait: Wait) => (timeline: Timeline) =>
  Effect.gen(function*() {
    const fiber = yield* Effect.forkChild(
      wait("%1" as PaneId, matchesText, timeline.timeoutMs).pipe(
        Effect.provideService(PaneReader, scriptedReader(timeline)),
        Effect.result
      )
    )
    // The call never outlives its deadline by more than one poll.
    yield* TestClock.adjust(timeline.timeoutMs + pollIntervalMs)
    const ended = fiber.pollUnsafe()
    assert.isDefined(ended, "still waiting a poll after the deadline")
    const result = yield* Fiber.join(fiber)
    const want = expected(timeline)
    if (result._tag === "Failure") {
      assert.strictEqual(result.failure._tag, want.outcome)
      return
    }
    assert.strictEqual(result.success.outcome, want.outcome)
    assert.strictEqual(result.success.elapsedMs, want.atMs)
  })

/** Reports progress into `seen`, with the virtual time of each report. */
const progressInto = (seen: Array<number>) => ({
  progress: () =>
    Effect.asVoid(Effect.map(Effect.clockWith((clock) => clock.currentTimeMillis), (now) => seen.push(now)))
})

const QuietTimeout = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 20_000 }))

const progressIsSpaced = (wait: Wait) => (timeoutMs: number) =>
  Effect.gen(function*() {
    const seen: Array<number> = []
    const quiet: Timeline = { entry: ["$"], events: [], timeoutMs, moves: false }
    const fiber = yield* Effect.forkChild(
      wait("%1" as PaneId, matchesText, timeoutMs).pipe(
        Effect.provideService(PaneReader, scriptedReader(quiet)),
        Effect.provideService(Progress, progressInto(seen))
      )
    )
    yield* TestClock.adjust(timeoutMs + pollIntervalMs)
    yield* Fiber.join(fiber)
    // About once a second for any call length: never closer than a second, never more than the call's seconds.
    seen.forEach((at, i) => assert.isAtLeast(at - (seen[i - 1] ?? 0), 1_000))
    assert.isAtMost(seen.length, Math.floor(timeoutMs / 1_000))
    if (timeoutMs >= 1_000 + pollIntervalMs) {
      assert.isAbove(seen.length, 0, "no progress in a call longer than a second")
    }
  })

/** Broken waits the properties must catch. */
const broken = {
  /** Counts rows present at entry as new. */
  acceptsOldRows:
    ((pane, matcher, timeoutMs) =>
      waitForText(pane, matcher, timeoutMs, { pid: 10, anchor: 0, hashes: [] })) satisfies Wait,
  /** Waits three polls past its deadline. */
  lateDeadline:
    ((pane, matcher, timeoutMs) => waitForText(pane, matcher, timeoutMs + 3 * pollIntervalMs)) satisfies Wait,
  /** Reports progress on every poll. */
  chattyProgress: ((pane, matcher, timeoutMs) =>
    Effect.gen(function*() {
      const reporter = yield* Progress
      const reader = yield* PaneReader
      return yield* waitForText(pane, matcher, timeoutMs).pipe(
        Effect.provideService(
          PaneReader,
          PaneReader.of({ read: (id, from) => Effect.andThen(reporter.progress(0, 0, ""), reader.read(id, from)) })
        )
      )
    })) satisfies Wait
}

describe("waitForText over generated timelines", () => {
  it.effect.prop(
    "matches exactly the fresh output seen at a poll before the deadline, and ends within a poll of it",
    [Timeline],
    ([timeline]) => endsAsThePaneSays(waitForText)(timeline),
    { arbitrary: { runs: 400 } }
  )

  it.effect("finds output written after the screen and history were cleared", () =>
    endsAsThePaneSays(waitForText)({
      entry: ["$", "$"],
      events: [{ at: 5, does: "clear" }, { at: 5, does: { write: "MATCH" } }],
      timeoutMs: 100,
      moves: true
    }))

  it.effect("finds a match written over a cleared screen at once, with a prompt after it (found by the property)", () =>
    endsAsThePaneSays(waitForText)({
      entry: ["x", ""],
      events: [{ at: 1, does: "clear" }, { at: 1, does: { write: "$ MATCH" } }, { at: 2, does: { write: "$" } }],
      timeoutMs: 2,
      moves: true
    }))

  it.effect(
    "finds output written just after tmux trimmed the history " +
      "at its limit, though the history size is back where it was",
    () =>
      endsAsThePaneSays(waitForText)({
        entry: Array.from({ length: height + historyLimit }, () => "x" as const),
        events: [{ at: 5, does: { write: "MATCH" } }, { at: 5, does: { write: "x" } }],
        timeoutMs: 100,
        moves: true
      })
  )

  it.effect.prop(
    "reports progress about once a second, for any call length",
    [QuietTimeout],
    ([timeoutMs]) => progressIsSpaced(waitForText)(timeoutMs),
    { arbitrary: { runs: 50 } }
  )

  it.effect("the properties catch a wait that counts old rows, one that overruns its deadline, a chatty ticker", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* checkProperty(Timeline, endsAsThePaneSays(broken.acceptsOldRows)), "Falsified")
      assert.strictEqual(yield* checkProperty(Timeline, endsAsThePaneSays(broken.lateDeadline)), "Falsified")
      assert.strictEqual(yield* checkProperty(QuietTimeout, progressIsSpaced(broken.chattyProgress), 50), "Falsified")
    }))
})
