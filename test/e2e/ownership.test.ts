/**
 * Socket ownership across instances and over a server's life: racing first starts, adoption,
 * recorded provenance, the advisory lease (shared, exclusive, left by a killed process), exit with a
 * wait in flight, and a tmux server that dies under running calls.
 */
import { spawn } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { binPath, call, runToExit, serverEnv, structured, textOf } from "../support/mcp.ts"
import { running, until, waiterOf } from "../support/poll.ts"
import { shellEnv } from "../support/shells.ts"
import { type TmuxWorld, userSessions } from "../support/tmux.ts"

const h = harness("owner")
// For the one test about what the tools answer, not about the server processes on a socket.
const inProcess = harness("owner", { inProcess: true })

/** A server process started by hand, resolved when it printed its ready line. */
const startRaw = (world: TmuxWorld, env: Record<string, string> = {}) =>
  new Promise<{ child: ReturnType<typeof spawn>; stderr: () => string }>((resolve) => {
    const child = spawn(process.execPath, [binPath], { env: serverEnv(world, env), cwd: world.dir })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
      if (stderr.includes("libtmux-mcp ready")) resolve({ child, stderr: () => stderr })
    })
  })

describe("serialized creation", () => {
  it(
    "lets exactly one of several racing instances start the " +
      "server, with its configuration, and tells each the truth",
    async () => {
      const world = h.world()
      const configs = [1111, 2222, 3333, 4444].map((limit) => {
        const path = join(world.dir, `conf-${limit}.conf`)
        writeFileSync(path, `set -s exit-empty on\nset -g history-limit ${limit}\n`)
        return path
      })
      const clients = await Promise.all(
        configs.map((config) => h.connect(world, { LIBTMUX_TMUX_CONFIG: config, LIBTMUX_TOOLSETS: "inspect,execute" }))
      )
      const results = await Promise.all(
        clients.map((c, i) => call(c, "create_session", { session_name: `racer${i}` }).then(structured))
      )
      const starters = results.filter((result) => result.server_started)
      assert.strictEqual(starters.length, 1)
      const winner = results.indexOf(starters[0]!)
      assert.strictEqual(
        world.tmux("libtmux-mcp", "show", "-gv", "history-limit").trim(),
        String([1111, 2222, 3333, 4444][winner])
      )
      const record = world.tmux("libtmux-mcp", "show", "-sv", "@libtmux-mcp-started-by").trim()
      assert.strictEqual(record, `libtmux-mcp path:${configs[winner]}`)
      for (const [i, result] of results.entries()) {
        assert.strictEqual(result.server_provenance, record, `instance ${i}`)
      }
      // The racers' sessions, not the hidden ones of their control connections (opened as each first needs one).
      assert.deepStrictEqual(userSessions(world), ["racer0", "racer1", "racer2", "racer3"])
    }
  )
})

describe("adoption and provenance", () => {
  it("refuses a server of unknown provenance when told to, and adopts it by default with disclosure", async () => {
    const world = h.world()
    world.tmux("libtmux-mcp", "new-session", "-d", "-s", "by-hand")
    const refused = await runToExit(world, { LIBTMUX_ADOPT: "refuse" })
    assert.strictEqual(refused.code, 1)
    assert.include(refused.stderr, "does not record that libtmux-mcp started it")
    const c = await h.connect(world)
    assert.include(c.stderr(), "configuration_provenance=unknown")
  })

  it("reports recorded provenance to a later instance, which then offers teardown again", async () => {
    const world = h.world()
    const first = await h.connect(world)
    structured(await call(first, "create_session", { session_name: "kept" }))
    await first.close()
    const second = await h.connect(world)
    const names = (await second.client.listTools()).tools.map((tool) => tool.name)
    assert.include(names, "kill_session")
    assert.include(second.stderr(), "configuration_provenance=recorded")
    assert.include(second.stderr(), "recorded as started by libtmux-mcp with the minimal configuration")
    const document = JSON.parse(
      ((await second.client.readResource({ uri: "tmux://capabilities" })).contents[0] as { text: string }).text
    )
    assert.deepInclude(document, { configuration_provenance: "recorded", provenance_record: "libtmux-mcp minimal" })
  })
})

describe("advisory lease", () => {
  it("shares with a warning by default, refuses when exclusive, is released when its holder is killed", async () => {
    const world = h.world()
    const holder = await startRaw(world)
    assert.include(holder.stderr(), "lease=held")
    const sharing = await h.connect(world)
    assert.include(sharing.stderr(), "lease=shared")
    assert.match(
      sharing.stderr(),
      new RegExp(`libtmux-mcp warning: lease=shared holder="pid ${holder.child.pid} \\(libtmux-mcp`)
    )
    const exclusive = await runToExit(world, { LIBTMUX_LEASE: "exclusive" })
    assert.strictEqual(exclusive.code, 1)
    assert.include(exclusive.stderr, "holds the lease")
    await sharing.close()
    holder.child.kill("SIGKILL")
    await new Promise((resolve) => holder.child.on("close", resolve))
    const after = await h.connect(world, { LIBTMUX_LEASE: "exclusive" })
    assert.include(after.stderr(), "lease=held")
  })
})

describe("life cycle", () => {
  it("exits 0 on stdin close with a wait in flight and leaves no tmux wait-for child", async () => {
    const world = h.world()
    world.tmux("libtmux-mcp", "new-session", "-d", "-s", "keep")
    const { child } = await startRaw(world)
    const send = (message: object) => child.stdin!.write(`${JSON.stringify(message)}\n`)
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "0" } }
    })
    send({ jsonrpc: "2.0", method: "notifications/initialized" })
    send({
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "wait_for_channel", arguments: { channel: "never", timeout: 20 } }
    })
    const waiter = await waiterOf(child.pid, "never")
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
    child.stdin!.end()
    assert.strictEqual(await exited, 0)
    // Nothing else ends it: a waiter the server left behind would wait for ever.
    await until(`the server's tmux wait-for (pid ${waiter}) to end`, () => running(waiter), (alive) => !alive)
    assert.strictEqual(world.tmux("libtmux-mcp", "list-sessions", "-F", "#{session_name}").trim(), "keep")
  })

  it(
    "fails running calls with a typed error when the tmux server " +
      "dies, keeps serving, and starts a fresh server after",
    async () => {
      const world = inProcess.world()
      const c = await inProcess.connect(world, shellEnv(world, "/bin/bash"))
      const pane = structured(await call(c, "create_session", { session_name: "doomed" })).pane_id
      await call(c, "run_shell_command", { pane_id: pane, command: "true" })
      const running = call(c, "run_shell_command", { pane_id: pane, command: "sleep 20", timeout: 20 })
      const waiting = call(c, "wait_for_text", { pane_id: pane, patterns: ["never"], timeout: 20 })
      await until(
        "the run's sleep in the foreground",
        () => world.tmux("libtmux-mcp", "display", "-p", "-t", pane, "#{pane_current_command}").trim(),
        (command) => command === "sleep"
      )
      world.tmux("libtmux-mcp", "kill-server")
      for (const result of [await running, await waiting]) {
        assert.isTrue(result.isError, JSON.stringify(result))
        assert.include(textOf(result), "no tmux server is running")
      }
      const fresh = structured(await call(c, "create_session", { session_name: "again" }))
      assert.isTrue(fresh.server_started)
      assert.strictEqual(
        structured(await call(c, "run_shell_command", { pane_id: fresh.pane_id, command: "echo alive" })).output,
        "alive"
      )
    }
  )
})
