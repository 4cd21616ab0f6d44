/**
 * Which answers output_is_screen names a pager or full-screen program for (issue 58): the answer
 * whose watcher saw it; later ones while the alternate screen it was seen on is up; for one seen on
 * the main screen, the first answer after; never an answer read once a program of the alternate
 * screen left (`vi f && cat f`: cat's output).
 */
import { assert, describe, it } from "vitest"
import { screenOfAnswer } from "../../src/domain/screenSeen.ts"

describe("screenOfAnswer", () => {
  it("vi f && cat f: full-screen while vi's alternate screen is up, not for cat's output after", () => {
    const blocked = screenOfAnswer([], ["alternate-screen"], "full-screen")
    assert.deepStrictEqual(blocked.screen, ["full-screen", "alternate-screen"])
    const during = screenOfAnswer(blocked.carried, ["alternate-screen"])
    assert.deepStrictEqual(during.screen, ["full-screen", "alternate-screen"])
    const after = screenOfAnswer(during.carried, [])
    assert.deepStrictEqual(after.screen, [])
    assert.deepStrictEqual(after.carried, [])
  })

  it("a pager on the main screen (less -X): the first answer after it left, then no more", () => {
    const blocked = screenOfAnswer([], [], "pager")
    assert.deepStrictEqual(blocked.screen, ["pager"])
    const next = screenOfAnswer(blocked.carried, [])
    assert.deepStrictEqual(next.screen, ["pager"])
    assert.deepStrictEqual(screenOfAnswer(next.carried, []).screen, [])
  })

  it("keeps what the read itself says, once each", () => {
    const seen = screenOfAnswer([{ reason: "pager", alternate: false }], ["clear"], "pager")
    assert.deepStrictEqual(seen.screen, ["pager", "clear"])
    assert.deepStrictEqual(seen.carried, [{ reason: "pager", alternate: false }])
  })
})
