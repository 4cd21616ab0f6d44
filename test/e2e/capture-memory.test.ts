/**
 * A capture's memory is bounded by what it returns, not by the pane's history: capture_pane of a
 * 2,000-column pane with a 47,000-line history reads only the rows its bounds can keep.
 */
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { readFileSync } from "node:fs"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { call, structured } from "../support/mcp.ts"
import { until } from "../support/poll.ts"

const h = harness("capture-memory")

/** The peak resident size of a process so far, in MiB. */
const peakMiB = (pid: number): number =>
  Number(/VmHWM:\s+(\d+) kB/u.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024

describe("capture_pane memory", () => {
  it("keeps the server's peak resident size far below the size of a 94 MB history it was asked for", async () => {
    const world = h.world()
    const row = "x".repeat(1_999)
    world.tmux(
      "libtmux-mcp",
      "set-option",
      "-g",
      "history-limit",
      "50000",
      ";",
      "new-session",
      "-d",
      "-x",
      "2000",
      "-y",
      "50",
      `yes ${row} | head -n 47000; exec sleep 3600`
    )
    await until(
      "the pane's history to fill",
      () => Number(world.tmux("libtmux-mcp", "display-message", "-p", "#{history_size}")),
      (size) => size >= 46_900,
      { timeoutMs: 60_000, intervalMs: 200 }
    )
    const pane = world.tmux("libtmux-mcp", "display-message", "-p", "#{pane_id}").trim()
    const c = await h.connect(world)
    const pid = (c.client.transport as StdioClientTransport).pid!
    const before = peakMiB(pid)
    const result = structured(await call(c, "capture_pane", { pane_id: pane, start: -100_000, max_lines: 100 }))
    assert.strictEqual(result.lines, 100)
    assert.strictEqual(result.content.split("\n")[99], row)
    assert.isAtLeast(result.truncated_lines, 46_900)
    // Far more lines allowed than bytes: the read shrinks until it stays near max_bytes.
    const wide = structured(
      await call(c, "capture_pane", { pane_id: pane, start: -100_000, max_lines: 100_000, max_bytes: 4_000 })
    )
    assert.deepStrictEqual(wide.content.split("\n"), [row, row])
    assert.isAtLeast(wide.truncated_lines, 46_900)
    const peak = peakMiB(pid)
    // Before the bound, this capture alone took the server to ~480 MB.
    assert.isBelow(peak - before, 100, `peak resident size grew from ${before.toFixed(0)} to ${peak.toFixed(0)} MiB`)
  }, 120_000)
})
