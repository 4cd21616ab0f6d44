/**
 * The program respawn_pane waits for tmux to name: the command's own, past what runs it in its place.
 */
import { assert, describe, it } from "vitest"
import { programOf } from "../../src/tools/execute/respawn_pane.ts"

describe("programOf", () => {
  it("is the first word's last path part", () => {
    assert.strictEqual(programOf("/usr/bin/python3 -q"), "python3")
    assert.strictEqual(programOf("  fish  "), "fish")
  })

  it("looks past exec, env and variable assignments, which start the program in their place", () => {
    assert.strictEqual(programOf("exec fish"), "fish")
    assert.strictEqual(programOf("LANG=C TERM=dumb env /usr/bin/top -b"), "top")
    assert.strictEqual(programOf("env"), "env")
  })
})
