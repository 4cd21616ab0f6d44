/**
 * Startup refuses what tmux would destroy or not run: a socket path holding something that is not
 * a socket (tmux unlinks whatever is there when it starts a server), a socket folder that is not a
 * folder, a tmux configuration that is not a readable regular file. It resolves an empty
 * TMUX_TMPDIR exactly as tmux does.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, realpathSync, rmdirSync, symlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { assertBinRefused, assertRefused } from "../support/startupErrors.ts"

// The refusals are startup's decisions: they run in process (startup against the real file system
// and tmux), the first through the bin as well, where the exit status and the streams are the point.
const h = harness("refusals", { inProcess: true })

describe("socket path", () => {
  it("refuses path: naming an existing regular file, and leaves the file as it was", async () => {
    const world = h.world()
    const precious = join(world.dir, "passwd")
    writeFileSync(precious, "root:x:0:0::/root:/bin/sh\n")
    await assertRefused(world, { LIBTMUX_SOCKET: `path:${precious}` }, [precious, "is a regular file, not a socket"])
    await assertBinRefused(world, { LIBTMUX_SOCKET: `path:${precious}` }, [precious, "is a regular file, not a socket"])
    assert.strictEqual(readFileSync(precious, "utf8"), "root:x:0:0::/root:/bin/sh\n")
  })

  it("refuses path: naming a symbolic link, a folder, or a path under a file", async () => {
    const world = h.world()
    const target = join(world.dir, "target")
    writeFileSync(target, "keep")
    symlinkSync(target, join(world.dir, "link"))
    await assertRefused(world, { LIBTMUX_SOCKET: `path:${join(world.dir, "link")}` }, [
      "is a symbolic link, not a socket"
    ])
    await assertRefused(world, { LIBTMUX_SOCKET: `path:${world.dir}` }, ["is a folder, not a socket"])
    await assertRefused(world, { LIBTMUX_SOCKET: `path:${join(target, "agent.sock")}` }, [`${target} is not a folder`])
    await assertRefused(world, { LIBTMUX_SOCKET: `path:${join(world.dir, "missing", "agent.sock")}` }, [
      `${join(world.dir, "missing")} does not exist`
    ])
    assert.strictEqual(readFileSync(target, "utf8"), "keep")
  })

  it("refuses a regular file where a name: socket would go", async () => {
    const world = h.world()
    mkdirSync(world.socketDir, { mode: 0o700 })
    writeFileSync(world.socketPath("agents"), "keep")
    await assertRefused(world, { LIBTMUX_SOCKET: "name:agents" }, [world.socketPath("agents"), "not a socket"])
    assert.strictEqual(readFileSync(world.socketPath("agents"), "utf8"), "keep")
  })

  it("accepts path: naming the socket of a running tmux server", async () => {
    const world = h.world()
    const socket = join(world.dir, "live.sock")
    execFileSync("tmux", ["-S", socket, "-f", "/dev/null", "new-session", "-d"], {
      env: world.env
    })
    try {
      const c = await h.connect(world, { LIBTMUX_SOCKET: `path:${socket}` })
      assert.include(c.stderr(), "server_state=existing")
    } finally {
      execFileSync("tmux", ["-S", socket, "kill-server"])
    }
  })
})

describe("tmux configuration file", () => {
  it("refuses a folder or a FIFO as LIBTMUX_TMUX_CONFIG", async () => {
    const world = h.world()
    await assertRefused(world, { LIBTMUX_TMUX_CONFIG: world.dir }, [world.dir, "is not a regular file"])
    const fifo = join(world.dir, "fifo.conf")
    execFileSync("mkfifo", [fifo])
    await assertRefused(world, { LIBTMUX_TMUX_CONFIG: fifo }, [fifo, "is not a regular file"])
  })
})

describe("TMUX_TMPDIR set but empty", () => {
  // tmux makes the per-user folder under /tmp for any command when TMUX_TMPDIR is empty, so this
  // test (the server's look and its own) makes it: removed again when it did not exist before
  // (and nothing else came into it), so that a run leaves nothing outside its folder. After all, not
  // after each: the test's server closes after its afterEach, and its last tmux call made it again.
  const tmuxFolder = `${realpathSync("/tmp")}/tmux-${process.getuid?.() ?? 0}`
  const existed = existsSync(tmuxFolder)
  afterAll(() => {
    if (existed) return
    try {
      rmdirSync(tmuxFolder)
    } catch {
      // Gone already, or no longer empty: then it is not ours alone to remove.
    }
  })

  it("resolves the socket path tmux itself uses (tmux ignores the empty value)", async () => {
    const world = h.world()
    const name = `libtmux-mcp-test-empty-${process.pid}`
    // The lock folder goes in the world, not in the shared /tmp/tmux-<uid>.
    const runtime = join(world.dir, "runtime")
    mkdirSync(runtime, { mode: 0o700 })
    const c = await h.connect(world, { TMUX_TMPDIR: "", XDG_RUNTIME_DIR: runtime, LIBTMUX_SOCKET: `name:${name}` })
    const read = await c.client.readResource({ uri: "tmux://capabilities" })
    const document = JSON.parse("text" in read.contents[0]! ? read.contents[0].text : "{}")
    // No server runs on that name, so tmux names the path it tried, without starting one.
    let tmuxSays = ""
    try {
      execFileSync("tmux", ["-L", name, "list-sessions"], {
        cwd: world.dir,
        env: { ...process.env, TMUX_TMPDIR: "", TMUX: undefined },
        stdio: ["ignore", "pipe", "pipe"]
      })
    } catch (error) {
      tmuxSays = String((error as { stderr: Buffer }).stderr)
    }
    const match = /(?:no server running on|error connecting to) (\S+)/u.exec(tmuxSays)
    assert.isNotNull(match, tmuxSays)
    assert.strictEqual(document.socket.resolved_socket_path, match![1])
    assert.strictEqual(
      document.socket.resolved_socket_path,
      `${realpathSync("/tmp")}/tmux-${process.getuid?.() ?? 0}/${name}`
    )
  })
})
