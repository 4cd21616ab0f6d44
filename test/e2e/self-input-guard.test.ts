/**
 * Issue 18, item 4: an agent could type into its own client. The server runs inside a pane of the
 * pinned socket, started as MCP clients start it (no TMUX, no TMUX_PANE in its environment), and
 * finds its pane through the process tree: input tools refuse that pane, and so do the kill tools.
 */
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { startInPane, typedBefore } from "../support/inPane.ts"
import { call, structured, textOf } from "../support/mcp.ts"
import { until } from "../support/poll.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const h = harness("self-input")
const errorTag = (result: Awaited<ReturnType<typeof call>>) => result._meta?.["com.git-pull.libtmux-mcp/error"]
const screen = (world: TmuxWorld, pane: string) => world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", pane)
/** A pane running `sh` in a new window of `target`'s session. */
const shellPane = (world: TmuxWorld, target: string, split = false) =>
  world.tmux(
    "libtmux-mcp",
    ...(split ? ["split-window", "-d", "-t", target] : ["new-window", "-d", "-t", target]),
    "-P",
    "-F",
    "#{pane_id}",
    "/bin/sh"
  ).trim()

describe("self-input guard, with no TMUX variables", () => {
  it("refuses send_keys, paste_text, send_keys_batch and run_shell_command into the server's own pane", async () => {
    const world = h.world()
    const c = h.track(await startInPane(world, "home", { LIBTMUX_TOOLSETS: "inspect,execute" }))
    const other = shellPane(world, "=home:")
    const attempts: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
      ["send_keys", { pane_id: c.pane, keys: "typed-by-send" }],
      ["send_keys", { pane_id: c.pane, keys: "y", literal: true }],
      ["paste_text", { pane_id: c.pane, text: "typed-by-paste\n" }],
      ["send_keys_batch", { operations: [{ pane_id: other, keys: "echo batch" }, { pane_id: c.pane, keys: "x" }] }],
      ["run_shell_command", { pane_id: c.pane, command: "echo typed-by-run" }]
    ]
    for (const [tool, args] of attempts) {
      const result = await call(c, tool, args)
      assert.strictEqual(errorTag(result), "SelfInputRefused", `${tool}: ${textOf(result)}`)
      assert.include(textOf(result), `refusing ${tool} into pane ${c.pane}: this MCP server runs in that pane`)
    }
    assert.strictEqual(await typedBefore(world, c), "")
    assert.notInclude(screen(world, c.pane), "typed")
    // Other panes still take input.
    const sent = structured(await call(c, "send_keys", { pane_id: other, keys: "echo sent-$((40+2))" }))
    assert.deepStrictEqual(sent.targets, [other])
    await until("the other pane to run the sent line", () => screen(world, other).includes("sent-42"))
    // The batch sent nothing, not even to the pane it could have reached (its input would have come first).
    assert.notInclude(screen(world, other), "batch")
    const ran = structured(await call(c, "run_shell_command", { pane_id: other, command: "echo ran-$((6*7))" }))
    assert.strictEqual(ran.exit_status, 0)
    assert.strictEqual(ran.output, "ran-42")
    assert.strictEqual(await typedBefore(world, c), "")
  }, 60_000)

  it("refuses input that synchronize-panes would carry into the server's own pane", async () => {
    const world = h.world()
    const c = h.track(await startInPane(world, "home", { LIBTMUX_TOOLSETS: "inspect,execute" }))
    const sibling = shellPane(world, c.pane, true)
    world.tmux("libtmux-mcp", "set-option", "-w", "-t", c.pane, "synchronize-panes", "on")
    for (const tool of ["send_keys", "paste_text"]) {
      const args = tool === "send_keys" ? { pane_id: sibling, keys: "typed-sync" } : { pane_id: sibling, text: "typed" }
      const result = await call(c, tool, args)
      assert.strictEqual(errorTag(result), "SelfInputRefused", textOf(result))
      assert.include(textOf(result), `synchronize-panes is on in its window, which holds pane ${c.pane}`)
    }
    world.tmux("libtmux-mcp", "set-option", "-w", "-t", c.pane, "synchronize-panes", "off")
    assert.strictEqual(await typedBefore(world, c), "")
    structured(await call(c, "send_keys", { pane_id: sibling, keys: "echo unsynced-$((1+1))" }))
    await until("the sibling to run the sent line", () => screen(world, sibling).includes("unsynced-2"))
    assert.strictEqual(await typedBefore(world, c), "")
  }, 60_000)

  it("refuses the kill tools and marks is_caller when only the process tree leads to the pane", async () => {
    const world = h.world()
    // Detached: a session of its own and no controlling terminal, so the pane's tty cannot name it.
    const c = h.track(await startInPane(world, "home", { LIBTMUX_TOOLSETS: "inspect,execute,teardown" }, "detached"))
    const other = shellPane(world, "=home:")
    const window = world.tmux("libtmux-mcp", "display-message", "-p", "-t", c.pane, "#{window_id}").trim()
    for (
      const [tool, args] of [
        ["kill_pane", { pane_id: c.pane }],
        ["kill_window", { window_id: window }],
        ["kill_session", { session_name: "home" }],
        ["respawn_pane", { pane_id: c.pane }]
      ] as const
    ) {
      const result = await call(c, tool, args)
      assert.strictEqual(errorTag(result), "SelfKillRefused", `${tool}: ${textOf(result)}`)
      assert.include(textOf(result), c.pane)
    }
    const panes = structured(await call(c, "list_panes", { session_name: "home" })).panes
    assert.deepStrictEqual(panes.filter((pane: any) => pane.is_caller).map((pane: any) => pane.pane_id), [c.pane])
    assert.strictEqual(structured(await call(c, "snapshot_pane", { pane_id: c.pane })).is_caller, true)
    assert.strictEqual(errorTag(await call(c, "send_keys", { pane_id: c.pane, keys: "x" })), "SelfInputRefused")
    structured(await call(c, "kill_pane", { pane_id: other }))
    assert.include(world.tmux("libtmux-mcp", "list-panes", "-a", "-F", "#{pane_id}"), c.pane)
  }, 60_000)

  it("finds its pane by its controlling terminal when the pane's process is no longer its ancestor", async () => {
    const world = h.world()
    const c = h.track(await startInPane(world, "home", { LIBTMUX_TOOLSETS: "inspect,execute" }, "orphan"))
    const result = await call(c, "send_keys", { pane_id: c.pane, keys: "typed-by-orphan" })
    assert.strictEqual(errorTag(result), "SelfInputRefused", textOf(result))
    const panes = structured(await call(c, "list_panes", { session_name: "home" })).panes
    assert.deepStrictEqual(panes.filter((pane: any) => pane.is_caller).map((pane: any) => pane.pane_id), [c.pane])
    assert.strictEqual(await typedBefore(world, c), "")
  }, 60_000)
})
