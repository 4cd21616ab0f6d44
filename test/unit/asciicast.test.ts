/** The asciicast v3 pieces the recorder writes: intervals that never drift, lines a reader parses, names. */
import { prop } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { assert, describe, it } from "vitest"
import {
  callLabel,
  castClock,
  castFileName,
  eventLine,
  headerLine,
  pipeCommand,
  screenOutput
} from "../../src/domain/asciicast.ts"

describe("castClock", () => {
  prop(
    "adds up to each event's time since the start, to the millisecond, however the times fall",
    [Schema.Array(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 5000 })))],
    ([gaps]) => {
      const start = 1_700_000_000_000
      const clock = castClock(start)
      let now = start
      let sum = 0
      for (const gap of gaps) {
        now += gap
        sum += clock(now) * 1000
        assert.isAtMost(Math.abs(sum - (now - start)), 0.5 + 1e-3)
      }
    }
  )

  it("never goes back: an event stamped before the last one is at the same time", () => {
    const clock = castClock(1000)
    assert.strictEqual(clock(1500), 0.5)
    assert.strictEqual(clock(1400), 0)
    assert.strictEqual(clock(1600), 0.1)
  })
})

describe("eventLine and headerLine", () => {
  prop("are one JSON line each, any text in them kept", [Schema.String, Schema.Int], ([data, ms]) => {
    const line = eventLine(Math.abs(ms) / 1000, "o", data)
    assert.isTrue(line.endsWith("\n"))
    assert.notInclude(line.slice(0, -1), "\n")
    assert.deepStrictEqual(JSON.parse(line), [Number((Math.abs(ms) / 1000).toFixed(3)), "o", data])
  })

  it("hold NUL, escapes, CJK and quotes as they are", () => {
    const data = "a\u0000b\u001b[31m日本\"'\\"
    assert.deepStrictEqual(JSON.parse(eventLine(0.001, "o", data)), [0.001, "o", data])
    const header = JSON.parse(headerLine({
      cols: 80,
      rows: 24,
      timestamp: 1,
      instance: "1.2.3",
      socket: "/tmp/s",
      pane: "%4",
      part: 2
    }))
    assert.deepInclude(header, { version: 3, term: { cols: 80, rows: 24 } })
    assert.deepStrictEqual(header.libtmux_mcp, { instance: "1.2.3", socket: "/tmp/s", pane: "%4", part: 2 })
  })
})

describe("names and labels", () => {
  it("label a call as its audit record numbers it, and name each part's file", () => {
    assert.strictEqual(callLabel("run_shell_command", "42.7.9", 12), "run_shell_command 42.7.9#12")
    assert.strictEqual(castFileName("42.7.9", 3, "%15", 1), "42.7.9-3-pane15.cast")
    assert.strictEqual(castFileName("42.7.9", 3, "%15", 2), "42.7.9-3-pane15.part2.cast")
  })

  it("draw the first screen and put the cursor where it was", () => {
    const text = screenOutput({ rows: ["$ ls", "a  b"], cursorX: 4, cursorY: 1 })
    assert.isTrue(text.startsWith("\u001b[0m\u001b[H\u001b[2J$ ls"))
    assert.isTrue(text.endsWith("\u001b[2;5H"))
  })

  it("give tmux a pipe command whose # and % it expands back to the path, single-quoted for the shell", () => {
    assert.strictEqual(
      pipeCommand("/r/#{x} %H 'q'/f"),
      "[ -p '/r/##{x} %%H '\\''q'\\''/f' ] && exec >'/r/##{x} %%H '\\''q'\\''/f' && printf R && exec cat"
    )
  })
})
