/**
 * The self-kill guard holds against calls that run at the same moment, and against a socket path
 * that is a hard link to the server's own socket.
 */
import { linkSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { call, textOf } from "../support/mcp.ts"

const h = harness("self-kill")
const errorTag = (result: Awaited<ReturnType<typeof call>>) => result._meta?.["com.git-pull.libtmux-mcp/error"]

describe("self-kill guard", () => {
  it("keeps the server's own pane when kill_window and swap_pane race to move it into the doomed window", async () => {
    const world = h.world()
    world.tmux("libtmux-mcp", "new-session", "-d", "-s", "home")
    const own = world.tmux("libtmux-mcp", "display-message", "-p", "-t", "=home:", "#{pane_id}").trim()
    const c = await h.connect(world, {
      TMUX: `${world.socketPath("libtmux-mcp")},1,0`,
      TMUX_PANE: own,
      LIBTMUX_TOOLSETS: "inspect,manage,teardown"
    })
    for (let round = 0; round < 8; round++) {
      const [window, other] = world.tmux(
        "libtmux-mcp",
        "new-window",
        "-d",
        "-t",
        "=home:",
        "-P",
        "-F",
        "#{window_id} #{pane_id}"
      ).trim().split(" ")
      // Stagger the swap a little differently each round (behind `round` pings the server answers
      // first), so that it lands between the kill's check and act.
      const kill = call(c, "kill_window", { window_id: window })
      for (let ping = 0; ping < round; ping++) await c.client.ping()
      const swap = call(c, "swap_pane", { source_pane_id: own, target_pane_id: other })
      const [killed, swapped] = await Promise.all([kill, swap])
      const panes = world.tmux("libtmux-mcp", "list-panes", "-a", "-F", "#{pane_id}").trim().split("\n")
      assert.include(panes, own, `round ${round}: kill_window ${textOf(killed)}; swap_pane ${textOf(swapped)}`)
      // Exactly one of them went first: the kill refused after the swap, or the swap found its target gone.
      assert.isTrue(
        errorTag(killed) === "SelfKillRefused" || errorTag(swapped) === "PaneNotFound",
        `round ${round}: ${textOf(killed)} / ${textOf(swapped)}`
      )
      if (errorTag(killed) === "SelfKillRefused") world.tmux("libtmux-mcp", "kill-window", "-t", window!)
    }
  }, 60_000)

  it("refuses the server's own pane when the pinned socket is a hard link to the server's socket", async () => {
    const world = h.world()
    world.tmux("libtmux-mcp", "new-session", "-d", "-s", "home")
    const own = world.tmux("libtmux-mcp", "display-message", "-p", "-t", "=home:", "#{pane_id}").trim()
    const link = join(world.dir, "linked.sock")
    linkSync(world.socketPath("libtmux-mcp"), link)
    const c = await h.connect(world, {
      LIBTMUX_SOCKET: `path:${link}`,
      TMUX: `${world.socketPath("libtmux-mcp")},1,0`,
      TMUX_PANE: own,
      LIBTMUX_TOOLSETS: "inspect,teardown"
    })
    const result = await call(c, "kill_pane", { pane_id: own })
    assert.strictEqual(errorTag(result), "SelfKillRefused", textOf(result))
    assert.include(world.tmux("libtmux-mcp", "list-panes", "-a", "-F", "#{pane_id}"), own)
  })
})
