/**
 * wait_for_text's deadline, polling, progress and "new output only" logic under TestClock, with a
 * scripted pane reader: no tmux, no real time.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { TestClock } from "effect/testing"
import type { PaneId } from "../../src/domain/ids.ts"
import { makePacer } from "../../src/layers/PaneActivityLive.ts"
import type { ProcFiles } from "../../src/layers/PaneProcessLive.ts"
import { waitForText } from "../../src/programs/waitText.ts"
import { PaneReader, type PaneView } from "../../src/services/PaneReader.ts"
import { Progress } from "../../src/services/Progress.ts"
import { type LineMatcher, matchBudgetMs, PatternTooCostly } from "../../src/services/Regex.ts"

const view = (rows: ReadonlyArray<string>, extra: Partial<PaneView> = {}): PaneView => ({
  pid: 10,
  dead: false,
  alternate: false,
  historySize: 0,
  cursorY: 0,
  firstRow: 5,
  rows,
  ...extra
})

/** A reader whose pane shows `entry` first, then whatever `script` says for the current virtual time. */
const scripted = (entry: PaneView, script: (now: number) => PaneView) => {
  let started: number | undefined
  return PaneReader.of({
    read: (_pane, from) =>
      Effect.map(Effect.clockWith((clock) => clock.currentTimeMillis), (now) => {
        if (from === undefined) {
          started = now
          return entry
        }
        return script(now - (started ?? now))
      })
  })
}

/** A matcher of plain predicates, answering at once. */
const matcherOf = (predicates: ReadonlyArray<(line: string) => boolean>): LineMatcher => ({
  firstMatches: (lines) => Effect.succeed(lines.map((line) => predicates.findIndex((matches) => matches(line))))
})

const run = (
  reader: PaneReader["Service"],
  matchers: ReadonlyArray<(line: string) => boolean> | undefined,
  timeoutMs: number,
  progress: Array<number> = []
) =>
  waitForText("%1" as PaneId, matchers === undefined ? undefined : matcherOf(matchers), timeoutMs).pipe(
    Effect.provideService(PaneReader, reader),
    Effect.provideService(Progress, { progress: (done) => Effect.sync(() => void progress.push(done)) })
  )

describe("waitForText", () => {
  it.effect("matches only output written after the call started, even when it repeats an old line", () =>
    Effect.gen(function*() {
      const entry = view(["$ ready", ""])
      const reader = scripted(entry, (t) => t < 300 ? entry : view(["$ ready", "ready", "$ ready"]))
      const fiber = yield* Effect.forkChild(run(reader, [(line) => line.includes("ready")], 10_000))
      yield* TestClock.adjust(250)
      assert.isUndefined(fiber.pollUnsafe())
      yield* TestClock.adjust(100)
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.outcome, "matched")
      assert.strictEqual(result.matchedLine, "ready")
      assert.isAtMost(result.elapsedMs, 350)
    }))

  it.effect("times out at the deadline and reports progress about once a second", () =>
    Effect.gen(function*() {
      const entry = view(["$ "])
      const progress: Array<number> = []
      const fiber = yield* Effect.forkChild(
        run(scripted(entry, () => entry), [(line) => line.includes("never")], 3_000, progress)
      )
      yield* TestClock.adjust(3_100)
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.outcome, "timeout")
      assert.isAtLeast(result.elapsedMs, 3_000)
      assert.isAtMost(result.elapsedMs, 3_050)
      assert.deepStrictEqual(progress.map(Math.round), [1, 2])
    }))

  it.effect("ends on any new output when no pattern is given, and a changed row counts as new", () =>
    Effect.gen(function*() {
      const entry = view(["$ "])
      const fiber = yield* Effect.forkChild(
        run(scripted(entry, (t) => t < 100 ? entry : view(["$ ls"])), undefined, 5_000)
      )
      yield* TestClock.adjust(150)
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual([result.outcome, result.newLines], ["any_output", ["$ ls"]])
    }))

  it.effect("matches nothing while the alternate screen is up, and says it saw it", () =>
    Effect.gen(function*() {
      const entry = view(["$ "])
      const fiber = yield* Effect.forkChild(
        run(scripted(entry, () => view(["match me"], { alternate: true })), [(line) => line.includes("match")], 1_000)
      )
      yield* TestClock.adjust(1_100)
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual([result.outcome, result.alternateScreenSeen], ["timeout", true])
    }))

  it.effect("fails at once when the pane dies or is respawned", () =>
    Effect.gen(function*() {
      const entry = view(["$ "])
      const dead = yield* Effect.flip(run(scripted(entry, () => view([], { dead: true })), undefined, 5_000))
      assert.strictEqual(dead._tag, "PaneGone")
      const respawned = yield* Effect.flip(run(scripted(entry, () => view(["$ "], { pid: 11 })), undefined, 5_000))
      assert.include(respawned.message, "respawned")
    }))

  it.effect("prefers the first pattern in order when several match the same output", () =>
    Effect.gen(function*() {
      const entry = view(["$ "])
      const fiber = yield* Effect.forkChild(run(scripted(entry, () => view(["$ ", "error: warning"])), [(l) =>
        l.includes("warning"), (l) =>
        l.includes("error")], 5_000))
      yield* TestClock.adjust(60)
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.matchedIndex, 0)
    }))

  it.effect("the lowest pattern index that matches any line wins, with the first line it matches", () =>
    Effect.gen(function*() {
      const entry = view(["$ "])
      const fiber = yield* Effect.forkChild(
        run(
          scripted(entry, () => view(["b1", "a1", "a2"])),
          [(l) => l.startsWith("a"), (l) => l.startsWith("b")],
          5_000
        )
      )
      yield* TestClock.adjust(60)
      const result = yield* Fiber.join(fiber)
      assert.deepStrictEqual([result.matchedIndex, result.matchedLine], [0, "a1"])
    }))

  describe("matches lines as the pane wrapped them, joined (issue 58)", () => {
    const across = (line: string) => line.includes("GET / HTTP")

    it.effect("a pattern matches across the rows a line wrapped over", () =>
      Effect.gen(function*() {
        const entry = view(["$"])
        const wrapped = view(["$ printf", "xxGET /", "HTTP/1.1", "$"], {
          lines: [{ text: "$ printf", rows: 1 }, { text: "xxGET / HTTP/1.1", rows: 2 }, { text: "$", rows: 1 }]
        })
        const fiber = yield* Effect.forkChild(run(scripted(entry, () => wrapped), [across], 5_000))
        yield* TestClock.adjust(60)
        const result = yield* Fiber.join(fiber)
        assert.deepStrictEqual([result.outcome, result.matchedLine], ["matched", "xxGET / HTTP/1.1"])
        assert.deepStrictEqual(result.newLines, ["$ printf", "xxGET / HTTP/1.1", "$"])
      }))

    it.effect("a line counts when any of its rows is new, and not when all are old", () =>
      Effect.gen(function*() {
        // The old row where the call began, wrapped on into a new one.
        const half = view(["GET /", "HTTP"], { lines: [{ text: "GET / HTTP", rows: 2 }] })
        const fiber = yield* Effect.forkChild(run(scripted(view(["GET /"]), () => half), [across], 5_000))
        yield* TestClock.adjust(60)
        assert.strictEqual((yield* Fiber.join(fiber)).matchedLine, "GET / HTTP")
        // A wrapped line wholly there before the call stays old, though a row below is new.
        const entry = view(["GET /", "HTTP", "$"])
        const later = view(["GET /", "HTTP", "$", "new"], {
          lines: [{ text: "GET / HTTP", rows: 2 }, { text: "$", rows: 1 }, { text: "new", rows: 1 }]
        })
        const old = yield* Effect.forkChild(run(scripted(entry, () => later), [across], 300))
        yield* TestClock.adjust(400)
        const result = yield* Fiber.join(old)
        assert.deepStrictEqual([result.outcome, result.newLines], ["timeout", ["new"]])
      }))
  })

  it.effect("ends with outcome timeout at the deadline when matching is still running then", () =>
    Effect.gen(function*() {
      const entry = view(["$ "])
      const budgets: Array<number> = []
      // Matching that never finishes within its budget, as a costly pattern on long lines.
      const stalled: LineMatcher = {
        firstMatches: (_lines, budgetMs) =>
          Effect.andThen(
            Effect.sync(() => budgets.push(budgetMs)),
            Effect.andThen(Effect.sleep(budgetMs), Effect.fail(new PatternTooCostly({ reason: "test" })))
          )
      }
      const fiber = yield* Effect.forkChild(
        waitForText("%1" as PaneId, stalled, 1_000).pipe(
          Effect.provideService(PaneReader, scripted(entry, (t) => t < 100 ? entry : view(["x".repeat(80)]))),
          Effect.provideService(Progress, { progress: () => Effect.void })
        )
      )
      yield* TestClock.adjust(1_050)
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.outcome, "timeout")
      assert.isAtMost(result.elapsedMs, 1_020)
      assert.strictEqual(budgets.length, 1)
      assert.isAtMost(budgets[0]!, 900)
    }))

  it.effect("fails with the pattern's cost when matching runs past its own budget before the deadline", () =>
    Effect.gen(function*() {
      const entry = view(["$ "])
      const stalled: LineMatcher = {
        firstMatches: (_lines, budgetMs) =>
          Effect.andThen(Effect.sleep(budgetMs), Effect.fail(new PatternTooCostly({ reason: "test" })))
      }
      const fiber = yield* Effect.forkChild(Effect.flip(
        waitForText("%1" as PaneId, stalled, 600_000).pipe(
          Effect.provideService(PaneReader, scripted(entry, () => view(["x"]))),
          Effect.provideService(Progress, { progress: () => Effect.void })
        )
      ))
      yield* TestClock.adjust(matchBudgetMs + 100)
      const error = yield* Fiber.join(fiber)
      assert.strictEqual(error._tag, "PatternTooCostly")
    }))
  describe("rows that change above where the call began", () => {
    /** A pane of absolute rows (`rows(t)`), its cursor on the last one, read from any row as tmux does. */
    const pane = (rows: (t: number) => ReadonlyArray<string>, historySize: (t: number) => number) => {
      let started: number | undefined
      return PaneReader.of({
        read: (_pane, from) =>
          Effect.map(Effect.clockWith((clock) => clock.currentTimeMillis), (now) => {
            started ??= now
            const t = now - started
            const all = rows(t)
            const cursor = all.length - 1
            const first = from ?? cursor
            return view(all.slice(first), {
              historySize: historySize(t),
              cursorY: cursor - historySize(t),
              firstRow: first
            })
          })
      })
    }

    it.effect("a progress display redrawn in place above the cursor makes no old row new", () =>
      Effect.gen(function*() {
        const reader = pane(
          (t) => ["DONE", `step 1 ${t}`, `step 2 ${t}`, `step 3 ${t}`, "waiting", ""],
          () => 2
        )
        const fiber = yield* Effect.forkChild(run(reader, [(line) => line === "DONE"], 300))
        yield* TestClock.adjust(400)
        assert.strictEqual((yield* Fiber.join(fiber)).outcome, "timeout")
      }))

    it.effect("a history trimmed right after the call began makes no old row new", () =>
      Effect.gen(function*() {
        const held = ["h0", "h1", "DONE", ...Array.from({ length: 8 }, (_, i) => `h${i + 3}`), "$", ""]
        // Trimmed at the limit between the call's first read and its next one.
        let reads = 0
        const trimmed = () => reads++ > 0
        const reader = pane(() => trimmed() ? held.slice(1) : held, () => reads > 1 ? 9 : 10)
        const fiber = yield* Effect.forkChild(run(reader, [(line) => line === "DONE"], 300))
        yield* TestClock.adjust(400)
        assert.strictEqual((yield* Fiber.join(fiber)).outcome, "timeout")
      }))
  })

  describe("paced by the kernel's signal (issue 26)", () => {
    /** A /proc whose tmux server (100) has read `rchar()` bytes, parent of the pane's process (10). */
    const proc = (rchar: () => number): ProcFiles => ({
      read: (path) =>
        path === "/proc/100/io"
          ? `rchar: ${rchar()}\n`
          : path === "/proc/10/stat"
          ? "10 (bash) S 100 10 10 34816 10 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0"
          : undefined,
      link: () => undefined,
      device: () => undefined
    })
    /** A reader that counts its reads, paced by the live pacer over `files`. */
    const paced = (files: ProcFiles, rows: (reads: number, now: number) => PaneView) => {
      let reads = 0
      let started: number | undefined
      const reader = PaneReader.of({
        read: () =>
          Effect.map(Effect.clockWith((clock) => clock.currentTimeMillis), (now) => {
            started ??= now
            return rows(++reads, now - started)
          }),
        pacer: () => makePacer({ panePid: 10, serverPid: 100 }, files)
      })
      return { reader, reads: () => reads }
    }

    it.effect("reads a quiet pane only at its start and on the periodic refresh, and times out", () =>
      Effect.gen(function*() {
        const entry = view(["$ "], { serverPid: 100 })
        const { reader, reads } = paced(proc(() => 7), () => entry)
        const fiber = yield* Effect.forkChild(run(reader, [(line) => line.includes("never")], 10_000))
        yield* TestClock.adjust(10_100)
        assert.strictEqual((yield* Fiber.join(fiber)).outcome, "timeout")
        // Entry, the context above it, the first look, then one refresh every 2 s.
        assert.isAtMost(reads(), 3 + 5)
      }))

    it.effect("sees text written right after its first read, though the server reads nothing after", () =>
      Effect.gen(function*() {
        const entry = view(["$ "], { serverPid: 100 })
        const { reader } = paced(proc(() => 7), (reads) => reads === 1 ? entry : view(["$ ", "early"]))
        const fiber = yield* Effect.forkChild(run(reader, [(line) => line === "early"], 10_000))
        yield* TestClock.adjust(50)
        const result = yield* Fiber.join(fiber)
        assert.deepStrictEqual([result.outcome, result.matchedLine], ["matched", "early"])
      }))

    it.effect("looks again as soon as the server reads output, after a long quiet", () =>
      Effect.gen(function*() {
        const entry = view(["$ "], { serverPid: 100 })
        let rchar = 7
        let written = false
        const { reader, reads } = paced(proc(() => rchar), () => written ? view(["$ ", "late"]) : entry)
        const fiber = yield* Effect.forkChild(run(reader, [(line) => line === "late"], 30_000))
        yield* TestClock.adjust(7_990)
        const quietReads = reads()
        written = true
        rchar = 99
        yield* TestClock.adjust(60)
        assert.strictEqual(fiber.pollUnsafe()?._tag, "Success", "answered within a quiet tick")
        const result = yield* Fiber.join(fiber)
        assert.strictEqual(result.outcome, "matched")
        assert.isAtMost(quietReads, 3 + 3)
      }))
  })
})
