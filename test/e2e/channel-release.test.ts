/**
 * wait_for_channel after a timeout or a cancellation: tmux keeps a killed waiting client as a waiter,
 * which would take the next signal. The call releases its own waiter instead, so the next
 * signal_channel reaches the next waiter; the cost, stated in the description, is that whoever else
 * waits on the channel at that moment is woken too. No kept signal is left behind.
 */
import { spawn } from "node:child_process"
import { readdirSync, readlinkSync } from "node:fs"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { call, structured } from "../support/mcp.ts"
import { running, until, waiterOf } from "../support/poll.ts"

const h = harness("channel", { inProcess: true })
// For the test that finds the server process's tmux wait-for child.
const bin = harness("channel")
/** The process has a socket open: a tmux client has connected to its server. */
const connected = (pid: number) =>
  readdirSync(`/proc/${pid}/fd`).some((fd) => readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith("socket:"))

const open = async (on = h) => {
  const world = on.world()
  const c = await on.connect(world)
  structured(await call(c, "create_session", { session_name: "work" }))
  return { world, c }
}

describe("wait_for_channel releases its waiter", () => {
  it("after a timeout, the next signal_channel reaches the next wait", async () => {
    const { c } = await open()
    assert.strictEqual(
      structured(await call(c, "wait_for_channel", { channel: "job.done", timeout: 0.3 })).outcome,
      "timeout"
    )
    // Nobody waits now: tmux keeps this signal for the next waiter.
    structured(await call(c, "signal_channel", { channel: "job.done" }))
    assert.strictEqual(
      structured(await call(c, "wait_for_channel", { channel: "job.done", timeout: 3 })).outcome,
      "signalled"
    )
    // And the timeout left no extra kept signal.
    assert.strictEqual(
      structured(await call(c, "wait_for_channel", { channel: "job.done", timeout: 0.3 })).outcome,
      "timeout"
    )
  })

  it("after a cancellation, the next signal_channel reaches the next wait", async () => {
    const { c } = await open(bin)
    const controller = new AbortController()
    const cancelled = c.client.callTool(
      { name: "wait_for_channel", arguments: { channel: "job.done", timeout: 30 } },
      undefined,
      { signal: controller.signal }
    )
      .then(() => "answered", () => "cancelled")
    const waiter = await waiterOf(c.pid?.(), "job.done")
    controller.abort()
    assert.strictEqual(await cancelled, "cancelled")
    await until("the cancelled call to release its tmux wait-for", () => running(waiter), (alive) => !alive)
    structured(await call(c, "signal_channel", { channel: "job.done" }))
    assert.strictEqual(
      structured(await call(c, "wait_for_channel", { channel: "job.done", timeout: 3 })).outcome,
      "signalled"
    )
    assert.strictEqual(
      structured(await call(c, "wait_for_channel", { channel: "job.done", timeout: 0.3 })).outcome,
      "timeout"
    )
  })

  it("a timeout also wakes another waiter of the same channel, as the description says", async () => {
    const { world, c } = await open()
    const other = spawn("tmux", ["-L", "libtmux-mcp", "wait-for", "shared"], {
      env: world.env,
      stdio: "ignore"
    })
    try {
      // Connected, it has sent its wait (at once); the call below waits 0.3 s more before it releases.
      await until("the other waiter to connect to tmux", () => connected(other.pid!))
      assert.strictEqual(
        structured(await call(c, "wait_for_channel", { channel: "shared", timeout: 0.3 })).outcome,
        "timeout"
      )
      assert.strictEqual(await until("the other waiter to end", () => other.exitCode, (code) => code !== null), 0)
      assert.strictEqual(
        structured(await call(c, "wait_for_channel", { channel: "shared", timeout: 0.3 })).outcome,
        "timeout"
      )
    } finally {
      other.kill()
    }
  })
})
