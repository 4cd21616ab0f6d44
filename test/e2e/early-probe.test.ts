/**
 * Issue 26: the entry point starts its tmux probes while the rest of the server loads, and only
 * after the socket's ownership checks. A socket the checks refuse sees no tmux client of ours at
 * all (not even `tmux -V`) and no connection; an accepted one is probed.
 */
import { chmodSync, mkdirSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { runToExit } from "../support/mcp.ts"
import { loggingTmux, type TmuxWorld } from "../support/tmux.ts"

const h = harness("early-probe")

/** A folder of the given mode (chmod: mkdir's mode is cut by the umask). */
const folder = (world: TmuxWorld, name: string, mode: number) => {
  const path = join(world.dir, name)
  mkdirSync(path)
  chmodSync(path, mode)
  return path
}

describe("the probe that starts while the server loads", () => {
  it("runs no tmux client and makes no connection when the socket's checks refuse it", async () => {
    const world = h.world()
    const { wrapper, invocations } = loggingTmux(world)
    const socket = join(folder(world, "open", 0o777), "agent.sock")
    let connections = 0
    const listener = createServer((connection) => {
      connections++
      connection.destroy()
    })
    await new Promise<void>((resolve) => listener.listen(socket, resolve))
    try {
      const result = await runToExit(world, { LIBTMUX_SOCKET: `path:${socket}`, LIBTMUX_TMUX_BIN: wrapper }, [], "")
      assert.strictEqual(result.code, 1, result.stderr)
      assert.include(result.stderr, "on the way to the tmux socket has mode 0777")
      assert.strictEqual(connections, 0)
      assert.deepStrictEqual(invocations(), [])
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()))
    }
  })

  it("probes a socket the checks accept, then serves", async () => {
    const world = h.world()
    const { wrapper, invocations } = loggingTmux(world)
    const socket = join(folder(world, "private", 0o700), "agent.sock")
    world.tmux("unused", "-S", socket, "new-session", "-d")
    h.defer(() => world.tryTmux("unused", "-S", socket, "kill-server"))
    const result = await runToExit(world, { LIBTMUX_SOCKET: `path:${socket}`, LIBTMUX_TMUX_BIN: wrapper }, [], "")
    assert.strictEqual(result.code, 0, result.stderr)
    assert.include(result.stderr, "libtmux-mcp ready")
    const seen = invocations()
    assert.isTrue(seen.includes("-V"), seen.join("\n"))
    assert.isTrue(seen.some((line) => line.includes(`-S ${socket} list-sessions`)), seen.join("\n"))
  })

  it("takes a socket path with nothing there for no server, with no client forked to be told so", async () => {
    const world = h.world()
    const { wrapper, invocations } = loggingTmux(world)
    const socket = join(folder(world, "private", 0o700), "agent.sock")
    const result = await runToExit(world, { LIBTMUX_SOCKET: `path:${socket}`, LIBTMUX_TMUX_BIN: wrapper }, [], "")
    assert.strictEqual(result.code, 0, result.stderr)
    assert.include(result.stderr, "libtmux-mcp ready")
    const seen = invocations()
    assert.isTrue(seen.includes("-V"), seen.join("\n"))
    assert.isFalse(seen.some((line) => line.includes("list-sessions")), seen.join("\n"))
  })
})
