/**
 * wait_for_channel after a timeout or a cancellation: tmux keeps a killed waiting client as a waiter,
 * which would take the next signal. The call releases its own waiter instead, so the next
 * signal_channel reaches the next waiter; the cost, stated in the description, is that whoever else
 * waits on the channel at that moment is woken too. No kept signal is left behind.
 */
import { spawn } from "node:child_process"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { call, structured } from "../support/mcp.ts"

const h = harness("channel")
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const open = async () => {
  const world = h.world()
  const c = await h.connect(world)
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
    const { c } = await open()
    const controller = new AbortController()
    const cancelled = c.client.callTool(
      { name: "wait_for_channel", arguments: { channel: "job.done", timeout: 30 } },
      undefined,
      { signal: controller.signal }
    )
      .then(() => "answered", () => "cancelled")
    await sleep(300)
    controller.abort()
    assert.strictEqual(await cancelled, "cancelled")
    await sleep(300)
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
      env: { ...process.env, TMUX_TMPDIR: world.dir, TMUX: "", TMUX_PANE: "" },
      stdio: "ignore"
    })
    const otherEnded = new Promise<number | null>((resolve) => other.on("close", resolve))
    try {
      await sleep(300)
      assert.strictEqual(
        structured(await call(c, "wait_for_channel", { channel: "shared", timeout: 0.3 })).outcome,
        "timeout"
      )
      const ended = await Promise.race([otherEnded, sleep(3000).then(() => "still waiting")])
      assert.strictEqual(ended, 0)
      assert.strictEqual(
        structured(await call(c, "wait_for_channel", { channel: "shared", timeout: 0.3 })).outcome,
        "timeout"
      )
    } finally {
      other.kill()
    }
  })
})
