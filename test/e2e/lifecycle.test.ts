/**
 * Startup errors, socket forms and exit: a bad configuration stops the process with a message
 * naming the valid set and leaves no tmux server; stdin end and signals exit 0 at once, delete the
 * paste buffers an interrupted paste left, and leave the tmux server running.
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { formatTag } from "../../src/domain/instance.ts"
import { liveProc } from "../../src/platform/Proc.ts"
import { harness } from "../support/harness.ts"
import { binPath, call, runToExit, serverEnv } from "../support/mcp.ts"
import { assertBinRefused, startupErrorCases } from "../support/startupErrors.ts"

/** A live process's instance tag (domain/instance.ts): how a server names its paste buffers. */
const { view } = liveProc()
const tagOf = (pid: number) => formatTag({ pid, started: view.startedOf(pid) ?? 0, namespace: view.namespace })

// The socket forms are startup's decisions: their servers run in process; the exits start the bin.
const h = harness("lifecycle", { inProcess: true })

// Every refused configuration runs through startup in process (test/integration/startup-errors.test.ts);
// these three, a setting, a flag and a tmux probe, run through the process the client starts.
const throughTheBin = ["unknown toolset", "a binary that is not tmux", "unknown flag"]
const binCases = startupErrorCases.filter(({ label }) => throughTheBin.includes(label))
// A case renamed in the table would otherwise drop out of this file unseen.
if (binCases.length !== throughTheBin.length) {
  throw new Error(`lifecycle: no startup error case named one of ${throughTheBin}`)
}

describe("startup errors", () => {
  for (const { args, env, expected, label } of binCases) {
    it(`stops on ${label}, exits non-zero, prints nothing on stdout and starts no tmux server`, async () => {
      const world = h.world()
      await assertBinRefused(world, env, expected, args)
      assert.isFalse(existsSync(world.socketPath("libtmux-mcp")))
    })
  }
})

describe("socket forms", () => {
  it("pins path:/abs/socket and starts the server there", async () => {
    const world = h.world()
    const socket = join(world.dir, "agent.sock")
    const connected = await h.connect(world, { LIBTMUX_SOCKET: `path:${socket}` })
    const info = (await call(connected, "get_server_info")).structuredContent as Record<string, unknown>
    assert.strictEqual(info.socket, `path:${socket}`)
    assert.strictEqual(info.socket_path, socket)
    try {
      await call(connected, "create_session", { session_name: "p" })
      assert.isTrue(existsSync(socket))
      assert.isFalse(existsSync(world.socketPath("libtmux-mcp")))
    } finally {
      // The world's cleanup kills only servers in its socket folder.
      spawnSync("tmux", ["-S", socket, "kill-server"])
    }
  })

  it("resolves inherit outside tmux to the default socket and omits teardown", async () => {
    const world = h.world()
    const connected = await h.connect(world, { LIBTMUX_SOCKET: "inherit" })
    const info = (await call(connected, "get_server_info")).structuredContent as Record<string, unknown>
    assert.strictEqual(info.socket, "inherit")
    assert.strictEqual(info.socket_path, world.socketPath("default"))
    const names = (await connected.client.listTools()).tools.map((tool) => tool.name)
    assert.notInclude(names, "kill_session")
  })

  it("keeps a bare name and name:<name> equivalent", async () => {
    const world = h.world()
    const connected = await h.connect(world, { LIBTMUX_SOCKET: "agents" })
    const info = (await call(connected, "get_server_info")).structuredContent as Record<string, unknown>
    assert.strictEqual(info.socket, "name:agents")
    assert.strictEqual(info.socket_path, world.socketPath("agents"))
  })
})

describe("exit", () => {
  it("exits 0 when stdin ends and leaves the tmux server running", async () => {
    const world = h.world()
    world.tmux("libtmux-mcp", "new-session", "-d", "-s", "keep")
    const result = await runToExit(world)
    assert.strictEqual(result.code, 0)
    assert.strictEqual(result.stdout, "")
    assert.strictEqual(world.tmux("libtmux-mcp", "list-sessions", "-F", "#{session_name}").trim(), "keep")
  })

  for (const signal of ["SIGTERM", "SIGINT"] as const) {
    it(`exits 0 at once on ${signal}, deletes its own paste buffers and leaves the tmux server running`, async () => {
      const world = h.world()
      world.tmux("libtmux-mcp", "new-session", "-d", "-s", "keep")
      const child = spawn(process.execPath, [binPath], { env: serverEnv(world), cwd: world.dir })
      let stderr = ""
      await new Promise<void>((resolve) => {
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString("utf8")
          if (stderr.includes("libtmux-mcp ready")) resolve()
        })
      })
      world.tmux("libtmux-mcp", "set-buffer", "-b", `libtmux-mcp-paste-${tagOf(child.pid!)}-left`, "half a paste")
      // Another instance's paste in flight (this test process stands for a live instance).
      world.tmux("libtmux-mcp", "set-buffer", "-b", `libtmux-mcp-paste-${tagOf(process.pid)}-inflight`, "other")
      const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
      child.kill(signal)
      assert.strictEqual(await exited, 0)
      assert.strictEqual(world.tmux("libtmux-mcp", "list-sessions", "-F", "#{session_name}").trim(), "keep")
      assert.strictEqual(
        world.tmux("libtmux-mcp", "list-buffers", "-F", "#{buffer_name}").trim(),
        `libtmux-mcp-paste-${tagOf(process.pid)}-inflight`,
        "its own paste buffer left behind is deleted, another instance's is not"
      )
    })
  }

  it("leaves other instances' and the user's buffers when stdin ends", async () => {
    const world = h.world()
    world.tmux("libtmux-mcp", "new-session", "-d", "-s", "keep")
    world.tmux("libtmux-mcp", "set-buffer", "-b", `libtmux-mcp-paste-${tagOf(process.pid)}-inflight`, "other")
    world.tmux("libtmux-mcp", "set-buffer", "-b", "users-own", "kept")
    const result = await runToExit(world)
    assert.strictEqual(result.code, 0)
    assert.sameMembers(world.tmux("libtmux-mcp", "list-buffers", "-F", "#{buffer_name}").trim().split("\n"), [
      `libtmux-mcp-paste-${tagOf(process.pid)}-inflight`,
      "users-own"
    ])
    const empty = h.world()
    assert.strictEqual((await runToExit(empty)).code, 0)
    assert.isFalse(existsSync(empty.socketPath("libtmux-mcp")), "the cleanup starts no tmux server")
  })
})
