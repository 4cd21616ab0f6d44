/**
 * capture_since cursors: a signature that is not this process's is refused with a reason, whatever
 * characters it holds, never with an exception.
 */
import { assert, describe, it } from "vitest"
import { decodeCursor, encodeCursor } from "../../src/domain/cursor.ts"

const secret = Buffer.alloc(32, 3)
const state = {
  pane: "%1",
  socket: "/tmp/s",
  pid: 1,
  historySize: 0,
  height: 24,
  anchor: 0,
  anchorHash: "x",
  belowHashes: [],
  aboveHashes: [],
  alternate: false
}

describe("decodeCursor", () => {
  it("returns a cursor it signed", () => {
    assert.deepStrictEqual(decodeCursor(secret, encodeCursor(secret, state)), state)
  })

  it("refuses a signature of the right length in characters but not in bytes", () => {
    const token = encodeCursor(secret, state)
    const payload = token.slice(0, token.lastIndexOf(".") + 1)
    for (const unit of ["é", "\u{1F600}", "\u0000"]) {
      const forged = `${payload}${unit.repeat(22 / unit.length)}`
      assert.match(
        String(decodeCursor(secret, forged)),
        /altered, or issued by another server process/,
        JSON.stringify(unit)
      )
    }
  })
})
