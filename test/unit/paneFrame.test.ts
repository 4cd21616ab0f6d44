/**
 * The pane view's frame from `capture-pane -e`: style runs carried from row to row as tmux writes
 * them, escapes other than SGR dropped, the cursor's index counted in cells, and the digest.
 */
import { assert, describe, it } from "vitest"
import { frameDigest, frameOf, type FrameSource } from "../../src/domain/paneFrame.ts"
import { styledRows } from "../../src/domain/styledRows.ts"

describe("styled rows", () => {
  it("carries attributes into the next row, as tmux writes them relative to the row before", () => {
    const read = styledRows(["\x1b[31mred\x1b[1m bold", " still\x1b[0m\x1b[39m\x1b[49m plain"])
    assert.deepStrictEqual(read.rows, ["red bold", " still plain"])
    assert.deepStrictEqual(read.styles, [[0, 0, 3, "f1"], [0, 3, 8, "f1 B"], [1, 0, 6, "f1 B"]])
  })

  it("reads 256 colours, true colour, bright colours and colon forms", () => {
    const read = styledRows([
      "\x1b[38;5;208m\x1b[44mX\x1b[38;2;10;20;30mY\x1b[0m\x1b[91;102mZ\x1b[0m\x1b[38:2::1:2:3mW\x1b[4:3mU\x1b[4:0mn"
    ])
    assert.deepStrictEqual(read.rows, ["XYZWUn"])
    assert.deepStrictEqual(read.styles, [
      [0, 0, 1, "f208 b4"],
      [0, 1, 2, "f#0a141e b4"],
      [0, 2, 3, "f9 b10"],
      [0, 3, 4, "f#010203"],
      [0, 4, 5, "f#010203 U"],
      [0, 5, 6, "f#010203"]
    ])
  })

  it("reads 21 as an underline, and no SGR with a private marker (xterm's key modes) as an attribute", () => {
    const read = styledRows(["\x1b[>4;1ma\x1b[21mb\x1b[24mc"])
    assert.deepStrictEqual(read.rows, ["abc"])
    assert.deepStrictEqual(read.styles, [[0, 1, 2, "U"]])
  })

  it("drops every escape but SGR, and control characters, so none reaches the view", () => {
    const read = styledRows(["a\x1b]8;;https://example.com\x07link\x1b]8;;\x07b\x1b[2Jc\x07d\x1b(Be"])
    assert.deepStrictEqual(read.rows, ["alinkbcdBe"])
    assert.deepStrictEqual(read.styles, [])
  })
})

const source = (captured: ReadonlyArray<string>, cursor: readonly [number, number]): FrameSource => ({
  pane_id: "%1",
  session_id: "$0",
  pane_width: 20,
  pane_height: 3,
  pane_title: "t",
  pane_current_command: "bash",
  alternate_on: false,
  cursor_x: cursor[1],
  cursor_y: cursor[0],
  cursor_flag: true,
  captured
})

describe("frames", () => {
  it("counts the cursor in cells: a wide character takes two", () => {
    const frame = frameOf(source(["中文 ok", "", ""], [0, 5]), [])
    assert.deepStrictEqual(frame.cursor, { row: 0, index: 3, visible: true })
  })

  it("counts emoji as tmux 3.3a does: wide since Unicode 9, a sun of old narrow", () => {
    // tmux's cursor after each row: 🚀x 3, ✅y 3, ⌚z 3, ♈w 3, 🪐q 3, ☀s 2.
    for (
      const [row, x, index] of [["🚀x", 3, 3], ["✅y", 3, 2], ["⌚z", 3, 2], ["♈w", 3, 2], ["🪐q", 3, 3], [
        "☀s",
        2,
        2
      ]] as const
    ) {
      assert.strictEqual(frameOf(source([row, "", ""], [0, x]), []).cursor.index, index, row)
    }
  })

  it("pads the cursor's row with the spaces the capture left out, and keeps the pane's height", () => {
    const frame = frameOf(source(["$", "", "", "extra"], [1, 4]), [])
    assert.deepStrictEqual(frame.rows, ["$", "    ", ""])
    assert.deepStrictEqual(frame.cursor, { row: 1, index: 4, visible: true })
  })

  it("digests equal frames equally and any change differently", () => {
    const one = frameOf(source(["a", "", ""], [0, 1]), [])
    assert.strictEqual(frameDigest(one), frameDigest(frameOf(source(["a", "", ""], [0, 1]), [])))
    assert.notStrictEqual(frameDigest(one), frameDigest(frameOf(source(["a", "", ""], [0, 0]), [])))
    assert.notStrictEqual(
      frameDigest(one),
      frameDigest({ ...frameOf(source(["a", "", ""], [0, 1]), []), run: { run_id: "abc123", state: "working" } })
    )
    assert.match(frameDigest(one), /^[0-9a-f]{12}$/u)
  })
})
