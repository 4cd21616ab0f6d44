/**
 * What a dead server instance left in tmux is removed by the next instance, and only that: its
 * paste buffers, the options of a run it never typed, and `wait-for` clients on a channel whose run
 * no pane records. An instance is dead when its pid is gone or reused (another start time); one
 * from another pid namespace is not judged, and a live instance's or a typed run's are kept.
 */
import { spawn } from "node:child_process"
import { once } from "node:events"
import { readFileSync, readlinkSync } from "node:fs"
import { assert, describe, it } from "vitest"
import type { PaneId } from "../../src/domain/ids.ts"
import { encodeRecord } from "../../src/domain/runRecord.ts"
import { orphanAfterMs } from "../../src/platform/Leftovers.ts"
import { call, structured } from "../support/mcp.ts"
import { until } from "../support/poll.ts"
import { runHarness } from "../support/runs.ts"
import { shellEnv } from "../support/shells.ts"
import { loggingTmux } from "../support/tmux.ts"

const h = runHarness("leftovers")
const startedOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")[19])
const namespace = /\[([0-9]+)\]/u.exec(readlinkSync("/proc/self/ns/pid"))![1]!
/** How long ago a process started, in ms, from /proc (clock ticks of 10 ms). */
const ageMs = (pid: number) => Number(readFileSync("/proc/uptime", "utf8").split(" ")[0]) * 1000 - startedOf(pid) * 10

describe("leftovers of dead instances", () => {
  it("the next server removes a dead one's buffers, untyped runs and orphaned waiters, and nothing else", async () => {
    const { world, pane } = await h.open()
    const tmux = (...args: ReadonlyArray<string>) => world.tmux("libtmux-mcp", ...args)
    const child = spawn("sleep", ["30"])
    const childStarted = startedOf(child.pid!)
    child.kill()
    await once(child, "exit")
    const tags = {
      gone: `${child.pid}.${childStarted}.${namespace}`,
      reused: `${process.pid}.${startedOf(process.pid) - 1}.${namespace}`,
      live: `${process.pid}.${startedOf(process.pid)}.${namespace}`,
      foreign: `${child.pid}.${childStarted}.1`
    }
    for (const [label, tag] of Object.entries(tags)) tmux("set-buffer", "-b", `libtmux-mcp-paste-${tag}-${label}`, "x")
    const record = (id: string, tag: string) =>
      encodeRecord({
        run: {
          id,
          paneId: pane as PaneId,
          panePid: 1,
          tty: "/dev/pts/0",
          shell: "bash",
          promptRow: 0,
          trailer: "x",
          markStart: false,
          prompt: "$ ",
          typedStart: "(",
          echoRows: 3,
          screenRows: 24
        },
        instance: 1,
        tag,
        command: { prefix: "x", digest: "0" }
      })
    // Never typed by the dead instance (cut off before its paste), typed by it (resumable), never typed by a live one.
    // The typed record comes first: the first server's own sweep may run in between.
    tmux("set-option", "-p", "-t", pane, "@lmcp_typed_bbbbbb", "0 0 2 2000")
    for (const [id, tag] of [["aaaaaa", tags.gone], ["bbbbbb", tags.gone], ["cccccc", tags.live]] as const) {
      tmux("set-option", "-p", "-t", pane, `@lmcp_run_${id}`, record(id, tag))
      tmux("set-option", "-p", "-t", pane, `@l${id}`, "template")
    }
    // A waiting client whose instance died: its run is recorded on no pane.
    const waiter = spawn("tmux", ["-u", "-L", "libtmux-mcp", "wait-for", "lmcp_dddddd"], {
      env: world.env,
      stdio: "ignore"
    })
    try {
      // Old enough not to be a live call's list that has not yet set its record.
      await until("the waiter to be old enough to be judged", () => ageMs(waiter.pid!), (age) => age > orphanAfterMs)
      await h.connect(world, shellEnv(world, "/bin/bash"))
      const buffers = () => tmux("list-buffers", "-F", "#{buffer_name}").split("\n").filter((name) => name !== "")
      await until(
        "the dead instance's buffers to go",
        buffers,
        (names) => !names.some((name) => name.endsWith("-gone") || name.endsWith("-reused"))
      )
      assert.sameMembers(buffers(), [
        `libtmux-mcp-paste-${tags.live}-live`,
        `libtmux-mcp-paste-${tags.foreign}-foreign`
      ])
      // The sweep removes the buffers, then the untyped runs, in an invocation of its own.
      const options = () => tmux("show-options", "-p", "-t", pane).split("\n").map((line) => line.split(" ")[0])
      const left = await until(
        "the dead instance's untyped run to go",
        options,
        (names) => !names.includes("@lmcp_run_aaaaaa") && !names.includes("@laaaaaa")
      )
      assert.includeMembers(left, ["@lmcp_run_bbbbbb", "@lbbbbbb", "@lmcp_run_cccccc", "@lcccccc"])
      await until("the orphaned waiter to stop waiting", () => waiter.exitCode !== null || waiter.signalCode !== null)
    } finally {
      waiter.kill()
    }
  })
  it("on a fresh socket: no client forked to learn no server runs, and the sweeps go over the connection", async () => {
    const world = h.world()
    const { wrapper, invocations } = loggingTmux(world)
    // It counts forked clients: the default transport, whatever the run's (LIBTMUX_TEST_TRANSPORT).
    const env = { ...shellEnv(world, "/bin/bash"), LIBTMUX_TMUX_BIN: wrapper, LIBTMUX_TRANSPORT: "auto" }
    const c = await h.connect(world, env)
    structured(await call(c, "create_session", { session_name: "work", start_directory: world.dir }))
    // A call the connection carries opens it.
    structured(await call(c, "list_sessions"))
    // A buffer of an instance whose pid now belongs to a later process: the sweep at close removes it.
    const reused = `libtmux-mcp-paste-${process.pid}.${startedOf(process.pid) - 1}.${namespace}-reused`
    world.tmux("libtmux-mcp", "set-buffer", "-b", reused, "x")
    await c.close()
    assert.notInclude(world.tmux("libtmux-mcp", "list-buffers", "-F", "#{buffer_name}"), reused)
    const seen = invocations()
    const started = seen.findIndex((line) => line.includes(" new-session -d "))
    const connects = seen.flatMap((line, at) => line.includes(" -C new-session ") ? [at] : [])
    assert.isAbove(started, -1, seen.join("\n"))
    // No probe and no connection before the server: no socket was there to connect to.
    assert.isFalse(seen.some((line) => line.includes("#{@libtmux-mcp-started-by}")), seen.join("\n"))
    assert.strictEqual(connects.length, 1, seen.join("\n"))
    assert.isAbove(connects[0]!, started, seen.join("\n"))
    // Once connected, the sweeps (a second after startup, and at close) went over the connection.
    const sweeps = seen.slice(connects[0]!).filter((line) => /list-buffers|list-panes -a|lmcp-sweep-/u.test(line))
    assert.deepStrictEqual(sweeps, [])
  })
})
