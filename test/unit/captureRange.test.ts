/** Which rows capture_pane reads: the screen rows asked for plus at most the kept history rows above them. */
import { assert, describe, it } from "vitest"
import { firstRowToRead } from "../../src/domain/bounds.ts"

describe("firstRowToRead", () => {
  it("leaves a range that fits unchanged", () => {
    assert.strictEqual(firstRowToRead(undefined, undefined, 1_000), 0)
    assert.strictEqual(firstRowToRead(-500, undefined, 1_000), -500)
    assert.strictEqual(firstRowToRead(-2_000, -1_500, 1_000), -2_000)
    assert.strictEqual(firstRowToRead(5, 20, 1), 5)
  })

  it("keeps every screen row in the range and at most historyRows rows above them", () => {
    assert.strictEqual(firstRowToRead(-1_000_000, undefined, 1_000), -1_000)
    assert.strictEqual(firstRowToRead(-1_000_000, 30, 100), -100)
    assert.strictEqual(firstRowToRead(-1_000_000, -1, 100), -100)
    assert.strictEqual(firstRowToRead(-1_000_000, -501, 100), -600)
  })

  it("swaps a reversed range as tmux does", () => {
    // Only end, above the screen's top row 0: tmux captures end..0.
    assert.strictEqual(firstRowToRead(undefined, -50, 1_000), -50)
    assert.strictEqual(firstRowToRead(undefined, -5_000, 1_000), -1_000)
  })
})
