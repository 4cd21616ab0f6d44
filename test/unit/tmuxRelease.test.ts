/**
 * What `tmux -V` must print for startup to accept the binary: a tmux release of 3.2 or newer.
 */
import { assert, describe, it } from "vitest"
import { tmuxRelease } from "../../src/startup/StartupChecks.ts"

describe("tmux -V", () => {
  it("reads releases, release candidates and next- builds, and takes master as a development build", () => {
    assert.deepStrictEqual(tmuxRelease("tmux 3.3a"), [3, 3])
    assert.deepStrictEqual(tmuxRelease("tmux 3.2"), [3, 2])
    assert.deepStrictEqual(tmuxRelease("tmux 3.2-rc2"), [3, 2])
    assert.deepStrictEqual(tmuxRelease("tmux next-3.6"), [3, 6])
    assert.strictEqual(tmuxRelease("tmux master"), "development")
  })

  it("refuses output that is not a tmux version", () => {
    for (const text of ["", "true", "3.3a", "tmux", "screen 4.09", "Python 3.12", "tmux 3.3a extra", "not tmux 3.4"]) {
      assert.isUndefined(tmuxRelease(text), text)
    }
  })
})
