/**
 * Issue 26: a wait on a quiet pane looks at it only when something may have changed. The pacing
 * state machine, and the kernel signal it runs on, read from a made-up /proc.
 */
import { assert, describe, it } from "@effect/vitest"
import { afterLook, freshPace, gapAfter, type Pace, pacing, tick, tickAfter } from "../../src/domain/pacing.ts"
import { kernelSignal } from "../../src/layers/PaneActivityLive.ts"
import type { ProcFiles } from "../../src/layers/PaneProcessLive.ts"

/** Runs ticks every `every` ms up to `until`, with `signal(now)`; looks see `key(now)`. Returns the look times. */
const looksOver = (
  until: number,
  every: number,
  signal: (now: number) => boolean | undefined,
  key: (now: number) => string = () => "same"
) => {
  let pace: Pace = freshPace
  const looks: Array<number> = []
  for (let now = 0; now <= until; now += every) {
    const next = tick(pace, now, signal(now))
    pace = next.pace
    if (next.due) {
      looks.push(now)
      pace = afterLook(pace, now, key(now))
    }
  }
  return looks
}

describe("pacing", () => {
  it("looks at the first tick, then only when the signal says something changed or a refresh is due", () => {
    const looks = looksOver(12_000, 20, (now) => now === 1_000 || now === 1_020)
    const refreshes = [1, 2].map((n) => 1_020 + n * pacing.refreshMs)
    assert.deepStrictEqual(looks, [0, 1_000, 1_020, ...refreshes].filter((at) => at <= 12_000))
  })

  it("spaces out looks that find nothing new when the signal cannot tell, up to the longest gap", () => {
    const looks = looksOver(2_000, 20, () => undefined)
    const gaps = looks.slice(1).map((at, i) => at - looks[i]!)
    assert.deepStrictEqual(gaps.slice(0, 4), [20, 20, 40, 80])
    assert.isTrue(gaps.slice(4).every((gap) => gap === pacing.maxGapMs))
  })

  it("looks at every tick again as soon as a look finds something new", () => {
    // Nothing new until 1 s, then a change at every tick: the spacing falls back to the tick.
    const looks = looksOver(1_200, 20, () => undefined, (now) => now < 1_000 ? "same" : String(now))
    const late = looks.filter((at) => at > 1_100)
    assert.deepStrictEqual(late.slice(1).map((at, i) => at - late[i]!), late.slice(1).map(() => 20))
  })

  it("a refresh that finds nothing new leaves a trusted signal's spacing as it was", () => {
    let pace: Pace = afterLook(freshPace, 0, "same")
    pace = afterLook(tick(pace, pacing.refreshMs, false).pace, pacing.refreshMs, "same")
    assert.strictEqual(pace.quiet, 0)
    assert.strictEqual(gapAfter(pace.quiet), 0)
  })

  it("ticks fast while something changed lately, slower once the pane has been quiet, slower still at rest", () => {
    let pace = tick(freshPace, 0, false).pace
    pace = afterLook(pace, 0, "a")
    assert.strictEqual(tickAfter(pace, 500), pacing.busyTickMs)
    assert.strictEqual(tickAfter(pace, pacing.quietAfterMs), pacing.quietTickMs)
    assert.strictEqual(tickAfter(pace, pacing.restAfterMs), pacing.restTickMs)
    pace = tick(pace, 6_000, true).pace
    assert.strictEqual(tickAfter(pace, 6_000), pacing.busyTickMs)
  })
})

/** A /proc with a tmux server (pid 100) and a pane process (pid 200) whose parent it is. */
const procOf = (state: { rchar: number; paneParent: number | undefined; io: boolean }): ProcFiles => ({
  read: (path) => {
    if (path === "/proc/100/io") return state.io ? `rchar: ${state.rchar}\nwchar: 7\nsyscr: 3\n` : undefined
    if (path === "/proc/200/stat") {
      return state.paneParent === undefined
        ? undefined
        : `200 (ba sh) (x) S ${state.paneParent} 200 200 34816 200 4194560 0 0 0 0 0 0 0 0 20 0 1 0 5 0 0`
    }
    return undefined
  },
  link: () => undefined,
  device: () => undefined
})

describe("kernelSignal", () => {
  it("says changed when the tmux server read bytes, and not when it read none", () => {
    const state = { rchar: 10, paneParent: 100, io: true }
    const signal = kernelSignal(procOf(state), { panePid: 200, serverPid: 100 })!
    assert.isFalse(signal())
    state.rchar = 52
    assert.isTrue(signal())
    assert.isFalse(signal())
  })

  it("leaves out the bytes the server read of this process's control connection, and only those", () => {
    const state = { rchar: 10, paneParent: 100, io: true }
    let written = 1000
    const signal = kernelSignal(procOf(state), { panePid: 200, serverPid: 100 }, () => written)!
    // A look over the connection: the server read its 300 bytes, and nothing else.
    written += 300
    state.rchar += 300
    assert.isFalse(signal())
    // Written, read later: still the look's own bytes.
    written += 120
    assert.isFalse(signal())
    state.rchar += 120
    assert.isFalse(signal())
    // A pane's one byte beside a look's bytes.
    written += 50
    state.rchar += 51
    assert.isTrue(signal())
    assert.isFalse(signal())
  })

  it("says changed when the pane's process is gone or not the server's child, or the server's count is gone", () => {
    const state = { rchar: 10, paneParent: 100 as number | undefined, io: true }
    const signal = kernelSignal(procOf(state), { panePid: 200, serverPid: 100 })!
    state.paneParent = undefined
    assert.isTrue(signal())
    state.paneParent = 1
    assert.isTrue(signal())
    state.paneParent = 100
    state.io = false
    assert.isTrue(signal())
  })

  it("cannot tell where /proc does not show the server as the pane's parent, or its count cannot be read", () => {
    assert.isUndefined(kernelSignal(procOf({ rchar: 1, paneParent: 7, io: true }), { panePid: 200, serverPid: 100 }))
    assert.isUndefined(kernelSignal(procOf({ rchar: 1, paneParent: 100, io: false }), { panePid: 200, serverPid: 100 }))
    assert.isUndefined(
      kernelSignal(procOf({ rchar: 1, paneParent: 100, io: true }), { panePid: 200, serverPid: undefined })
    )
  })
})
