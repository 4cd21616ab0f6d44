/**
 * Issue 18, item 1: a tmux client obeys its server (MSG_LOCK runs a shell command, MSG_WRITE_OPEN
 * opens a file for writing, as our user), and a client starting a server opens `<socket>.lock`
 * with O_CREAT. So no tmux client of ours connects to a socket another user could have bound, at
 * startup or later, and no server is started where another user put a link at the lock's name.
 *
 * The "stranger" is uid 65534: its sockets and links are made by this (root) process and chowned,
 * which needs root; as another user these tests are skipped.
 */
import { execFileSync } from "node:child_process"
import { chmodSync, chownSync, existsSync, lchownSync, mkdirSync, rmSync, symlinkSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { join } from "node:path"
import { afterEach, assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { call, runToExit, structured, textOf } from "../support/mcp.ts"

const h = harness("socket-place")
const stranger = 65534
const asRoot = process.getuid?.() === 0
const rootOnly = it.skipIf(!asRoot)

/** A listener that stands in for a stranger's tmux server: it counts connections and hangs up. */
interface FakeServer {
  readonly connections: () => number
  close(): Promise<void>
}

const fakes: Array<FakeServer> = []
const servers: Array<string> = []
afterEach(async () => {
  for (const fake of fakes.splice(0)) await fake.close()
  for (const socket of servers.splice(0)) {
    try {
      execFileSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" })
    } catch {
      // Already gone.
    }
  }
})

/** Listens on `path` as the stranger. */
const fakeServer = async (path: string): Promise<FakeServer> => {
  let count = 0
  const server: Server = createServer((connection) => {
    count++
    connection.destroy()
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(path, resolve)
  })
  chownSync(path, stranger, stranger)
  const fake = {
    connections: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
  fakes.push(fake)
  return fake
}

/** A folder of the given mode in the world (chmod: mkdir's mode is cut by the umask). */
const folderIn = (dir: string, name: string, mode: number): string => {
  const path = join(dir, name)
  mkdirSync(path)
  chmodSync(path, mode)
  return path
}

const errorTag = (result: Awaited<ReturnType<typeof call>>) => result._meta?.["com.git-pull.libtmux-mcp/error"]

describe("startup connects nothing to a socket another user could have bound", () => {
  rootOnly("refuses a folder of mode 0777, naming it, its mode and the fix", async () => {
    const world = h.world()
    const open = folderIn(world.dir, "open", 0o777)
    const fake = await fakeServer(join(open, "agent.sock"))
    const result = await runToExit(world, { LIBTMUX_SOCKET: `path:${join(open, "agent.sock")}` })
    assert.strictEqual(fake.connections(), 0)
    assert.strictEqual(result.code, 1, result.stderr)
    assert.include(result.stderr, `folder ${open} on the way to the tmux socket has mode 0777`)
    assert.include(result.stderr, "choose a folder only you can write")
  })

  rootOnly("refuses another user's socket in a sticky folder of mode 1777, naming its owner", async () => {
    const world = h.world()
    const shared = folderIn(world.dir, "shared", 0o1777)
    const socket = join(shared, "agent.sock")
    const fake = await fakeServer(socket)
    const result = await runToExit(world, { LIBTMUX_SOCKET: `path:${socket}` })
    assert.strictEqual(fake.connections(), 0)
    assert.strictEqual(result.code, 1, result.stderr)
    assert.include(result.stderr, `tmux socket ${socket} belongs to uid ${stranger}`)
  })

  it("refuses a name nobody holds yet in a sticky folder of mode 1777", async () => {
    const world = h.world()
    const socket = join(folderIn(world.dir, "shared", 0o1777), "agent.sock")
    const result = await runToExit(world, { LIBTMUX_SOCKET: `path:${socket}` })
    assert.strictEqual(result.code, 1, result.stderr)
    assert.include(result.stderr, `tmux socket ${socket} does not exist`)
    assert.include(result.stderr, "mode 1777")
    assert.isFalse(existsSync(socket))
  })

  rootOnly("refuses another user's socket in a private folder", async () => {
    const world = h.world()
    const socket = join(folderIn(world.dir, "private", 0o700), "agent.sock")
    const fake = await fakeServer(socket)
    const result = await runToExit(world, { LIBTMUX_SOCKET: `path:${socket}` })
    assert.strictEqual(fake.connections(), 0)
    assert.strictEqual(result.code, 1, result.stderr)
    assert.include(result.stderr, `uid ${stranger}`)
  })

  rootOnly("applies the same check to inherit, whose socket comes from $TMUX", async () => {
    const world = h.world()
    const socket = join(folderIn(world.dir, "shared", 0o1777), "default")
    const fake = await fakeServer(socket)
    const result = await runToExit(world, { LIBTMUX_SOCKET: "inherit", TMUX: `${socket},1,0` })
    assert.strictEqual(fake.connections(), 0)
    assert.strictEqual(result.code, 1, result.stderr)
    assert.include(result.stderr, `belongs to uid ${stranger}`)
  })
})

describe("our own socket in a sticky folder others can write", () => {
  it("is used while it is there, but no server is started there once it has gone", async () => {
    const world = h.world()
    const socket = join(folderIn(world.dir, "shared", 0o1777), "agent.sock")
    servers.push(socket)
    execFileSync("tmux", ["-S", socket, "-f", "/dev/null", "new-session", "-d", "-s", "mine"], {
      env: world.env
    })
    const c = await h.connect(world, { LIBTMUX_SOCKET: `path:${socket}` })
    const listed = structured(await call(c, "list_sessions")).sessions
    assert.deepStrictEqual(listed.map((session: { session_name: string }) => session.session_name), ["mine"])
    // tmux 3.3a leaves its socket file when it exits; nothing answers on it any more.
    execFileSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" })
    const create = await call(c, "create_session", { session_name: "work" })
    assert.strictEqual(errorTag(create), "SocketUnsafe", textOf(create))
    assert.include(textOf(create), `no tmux server answers on ${socket}`)
    assert.include(textOf(create), "start it yourself")
    assert.isFalse(existsSync(`${socket}.lock`))
  })
})

describe("a link planted at <socket>.lock", () => {
  /** A link owned by the stranger where tmux opens `<socket>.lock` with O_CREAT to start a server. */
  const plant = (socket: string, target: string) => {
    symlinkSync(target, `${socket}.lock`)
    lchownSync(`${socket}.lock`, stranger, stranger)
  }

  rootOnly("does not get its target created: create_session refuses and starts no server", async () => {
    const world = h.world()
    const socket = join(folderIn(world.dir, "private", 0o700), "agent.sock")
    servers.push(socket)
    const target = join(world.dir, "created-by-tmux")
    const c = await h.connect(world, { LIBTMUX_SOCKET: `path:${socket}` })
    plant(socket, target)
    const result = await call(c, "create_session", { session_name: "work" })
    assert.strictEqual(errorTag(result), "SocketUnsafe", textOf(result))
    assert.include(textOf(result), `${socket}.lock is a symbolic link`)
    assert.isFalse(existsSync(target))
    assert.isFalse(existsSync(socket))
  })

  rootOnly("stops startup when it is there already, naming it", async () => {
    const world = h.world()
    const socket = join(folderIn(world.dir, "private", 0o700), "agent.sock")
    plant(socket, join(world.dir, "created-by-tmux"))
    const result = await runToExit(world, { LIBTMUX_SOCKET: `path:${socket}` })
    assert.strictEqual(result.code, 1, result.stderr)
    assert.include(result.stderr, `${socket}.lock is a symbolic link`)
    assert.isFalse(existsSync(join(world.dir, "created-by-tmux")))
  })
})

describe("after startup, when the last session has ended", () => {
  rootOnly("our private folder works; a stranger's socket put in its place gets no connection", async () => {
    const world = h.world()
    const socket = join(folderIn(world.dir, "private", 0o700), "agent.sock")
    servers.push(socket)
    const c = await h.connect(world, { LIBTMUX_SOCKET: `path:${socket}` })
    structured(await call(c, "create_session", { session_name: "work" }))
    const listed = structured(await call(c, "list_sessions")).sessions
    assert.deepStrictEqual(listed.map((session: { session_name: string }) => session.session_name), ["work"])

    // What exit-empty leaves: no server; then someone else binds the name first.
    execFileSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" })
    rmSync(socket, { force: true })
    const fake = await fakeServer(socket)

    const after = await call(c, "list_sessions")
    assert.strictEqual(errorTag(after), "SocketUnsafe", textOf(after))
    assert.include(textOf(after), `tmux socket ${socket} belongs to uid ${stranger}`)
    const create = await call(c, "create_session", { session_name: "again" })
    assert.strictEqual(errorTag(create), "SocketUnsafe", textOf(create))
    assert.strictEqual(fake.connections(), 0)
    // The server keeps serving.
    assert.strictEqual((await c.client.listTools()).tools.length > 0, true)
  })
})
