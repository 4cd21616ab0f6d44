/**
 * Placing a run's output start in bounded windows: the echo search's work does not grow with the
 * history, a trimmed history is searched only at whole chunks, and a terminal without echo never
 * makes rows older than the run count as its output.
 */
import { assert, describe, it } from "vitest"
import { candidateShifts, findEchoEnd, placeStart, type StartWindow, trimsPossible } from "../../src/domain/runStart.ts"

const trailer = `); /usr/bin/tmux -S "\${TMUX%%,*}" run -t%4 -C "set -pt%4 @x $?;#{@la1b2c3}"`
const typed = { row: 40, column: 2, historySize: 30, historyLimit: 1000 }
const base = { typed, trailer, prompt: "$ ", typedStart: "(", trimmed: false, cleared: false }

describe("findEchoEnd", () => {
  it("reads each row once and keeps less than the needle's length, whatever the rows", () => {
    const counted = { reads: 0 }
    const history = new Proxy(Array.from({ length: 200_000 }, () => "x".repeat(86)), {
      get: (target, key, receiver) => {
        if (typeof key === "string" && /^\d+$/u.test(key)) counted.reads++
        return Reflect.get(target, key, receiver)
      }
    })
    assert.strictEqual(findEchoEnd(history, 0, trailer), -1)
    assert.strictEqual(counted.reads, 200_000)
  })

  it("finds an echo split across rows at any point", () => {
    for (let cut = 1; cut < trailer.length; cut += 7) {
      const rows = ["$ ( echo hi", trailer.slice(0, cut), trailer.slice(cut), "hi"]
      assert.strictEqual(findEchoEnd(rows, 0, trailer), 2, `cut at ${cut}`)
    }
  })
})

describe("candidate shifts", () => {
  it("is the typed row alone while no trim can have happened", () => {
    assert.deepStrictEqual(candidateShifts(typed, 500), [0])
    assert.isFalse(trimsPossible(899, 1000))
  })

  it("is every whole chunk above once the history is at its limit: a dozen windows, not the history", () => {
    const big = { row: 1_000_050, column: 2, historySize: 1_000_000, historyLimit: 1_000_000 }
    const shifts = candidateShifts(big, 950_000)
    assert.deepStrictEqual(shifts, Array.from({ length: 11 }, (_, i) => i * 100_000))
  })
})

const window = (shift: number, rows: ReadonlyArray<string>): StartWindow => ({
  shift,
  firstRow: typed.row - shift,
  rows
})

describe("placeStart", () => {
  it("starts after the echo", () => {
    const place = placeStart({ ...base, windows: [window(0, ["$ ( echo hi", trailer, "hi"])] })
    assert.deepStrictEqual(place, { _tag: "Found", row: 42, column: 0, shift: 0 })
  })

  it("takes the oldest echo when output below repeats the trailer", () => {
    const place = placeStart({
      ...base,
      trimmed: true,
      windows: [window(0, ["out", trailer, "out"]), window(100, ["$ ( echo hi", trailer, "hi"])]
    })
    assert.deepStrictEqual(place, { _tag: "Found", row: typed.row - 100 + 2, column: 0, shift: 100 })
  })

  it("with the echo off, starts below the prompt the line editor left", () => {
    const place = placeStart({ ...base, windows: [window(0, ["$ ", "hi", "$ "])] })
    assert.deepStrictEqual(place, { _tag: "Found", row: 41, column: 0, shift: 0 })
  })

  it("with the echo off and output on the prompt's row (no line editor), starts at the typed column", () => {
    const place = placeStart({ ...base, windows: [window(0, ["$ hi", "$ "])] })
    assert.deepStrictEqual(place, { _tag: "Found", row: 40, column: 2, shift: 0 })
  })

  it("with the echo off in a trimmed history, takes the newest prompt: never an older one", () => {
    const place = placeStart({
      ...base,
      trimmed: true,
      windows: [window(0, ["7", "8"]), window(100, ["$ ", "1"]), window(200, ["$ ", "old secret"])]
    })
    assert.deepStrictEqual(place, { _tag: "Found", row: typed.row - 100 + 1, column: 0, shift: 100 })
  })

  it("does not take an older command's echo for a silent prompt", () => {
    const place = placeStart({ ...base, windows: [window(0, ["$ ( echo older", "older"])] })
    assert.deepStrictEqual(place, { _tag: "Unknown" })
  })

  it("says lost when the typed row was trimmed away, unknown when the rows held and it is not there", () => {
    assert.deepStrictEqual(placeStart({ ...base, trimmed: true, windows: [window(0, ["5001", "5002"])] }), {
      _tag: "Lost"
    })
    assert.deepStrictEqual(placeStart({ ...base, windows: [window(0, ["drawn over", "x"])] }), { _tag: "Unknown" })
  })

  it("never matches a blank prompt", () => {
    const place = placeStart({ ...base, prompt: "", typed: { ...typed, column: 0 }, windows: [window(0, ["", "x"])] })
    assert.deepStrictEqual(place, { _tag: "Unknown" })
  })
})
