/**
 * Hostile input that once ended in an internal error or a name that could not be found again: a
 * cursor with a multi-byte signature is refused as invalid, and a name with `\` is refused up front.
 */
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { call, structured, textOf } from "../support/mcp.ts"

const h = harness("hostile", { inProcess: true })
const errorTag = (result: Awaited<ReturnType<typeof call>>) => result._meta?.["com.git-pull.libtmux-mcp/error"]

describe("hostile input", () => {
  it("refuses a capture_since cursor whose signature holds multi-byte characters as an invalid cursor", async () => {
    const world = h.world()
    const c = await h.connect(world)
    const pane = structured(await call(c, "create_session", {})).pane_id
    const cursor: string = structured(await call(c, "capture_since", { pane_id: pane })).cursor
    const forged = `${cursor.slice(0, cursor.lastIndexOf(".") + 1)}${"é".repeat(22)}`
    const result = await call(c, "capture_since", { pane_id: pane, cursor: forged })
    assert.strictEqual(errorTag(result), "CursorInvalid")
    assert.include(textOf(result), "invalid capture_since cursor: it was altered")
  })

  it("refuses session and window names with a backslash, which tmux would not store as given", async () => {
    const world = h.world()
    const c = await h.connect(world)
    const created = await call(c, "create_session", { session_name: "a\\b" })
    assert.strictEqual(errorTag(created), "InputInvalid")
    assert.include(textOf(created), "must not contain '\\'")
    const session = structured(await call(c, "create_session", { session_name: "plain" })).session_id
    const window = await call(c, "create_window", { session_id: session, window_name: "w\\x" })
    assert.strictEqual(errorTag(window), "InputInvalid")
    const lookup = await call(c, "list_windows", { session_name: "a\\b" })
    assert.strictEqual(errorTag(lookup), "InputInvalid")
    assert.deepStrictEqual(world.tmux("libtmux-mcp", "list-sessions", "-F", "#{session_name}").trim().split("\n"), [
      "plain"
    ])
  })
})
