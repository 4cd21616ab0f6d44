/**
 * Back-pressure: a burst of short tmux commands queues for a bounded pool instead of timing out,
 * and blocking `wait-for` clients take no permit, so waiters never starve the signal that releases them.
 */
import { assert, describe, it } from "vitest"
import { poolSize } from "../../src/platform/TmuxExec.ts"
import { harness } from "../support/harness.ts"
import { call, structured, textOf } from "../support/mcp.ts"
import { childProcesses, until } from "../support/poll.ts"
import { rounds } from "../support/rounds.ts"

const h = harness("pressure")
// The SDK client's own per-request timeout (60 s) would otherwise cut a long queue short.
const long = { timeout: 300_000 }
// A hundred times the pool's permits on two cores; the long run sends the 2,000 of the report.
const burstSize = rounds(400, 2_000)

describe("back-pressure", () => {
  it(
    `serves ${burstSize} concurrent inspect calls beside pending wait_for_channel calls, then releases the waiters`,
    async () => {
      const world = h.world()
      // The waits must outlast the burst on a loaded machine: the ceiling is raised to match.
      const c = await h.connect(world, { LIBTMUX_MCP_WAIT_MAX_SECONDS: "110" })
      const pane: string = structured(await call(c, "create_session", {})).pane_id
      // More waiters than the pool has permits: were they to hold permits, nothing else would run.
      const waiters = Array.from(
        { length: Math.max(8, poolSize() + 1) },
        () =>
          c.client.callTool(
            { name: "wait_for_channel", arguments: { channel: "burst", timeout: 110 } },
            undefined,
            long
          )
      )
      // Every waiter reaches tmux before the burst starts.
      await until(
        `${waiters.length} tmux wait-for clients of the server`,
        () => childProcesses(c.pid?.() ?? 0).filter(({ args }) => args.includes("wait-for")).length,
        (count) => count === waiters.length
      )
      const burst = Array.from({ length: burstSize }, (_, i) =>
        c.client.callTool(
          i % 2 === 0
            ? { name: "list_sessions", arguments: {} }
            : { name: "get_pane_info", arguments: { pane_id: pane } },
          undefined,
          long
        ))
      for (const waiter of waiters) {
        waiter.catch(() => undefined)
      }
      const ping = c.client.ping(long)
      const results = await Promise.all(burst)
      const failed = results.filter((result) => result.isError === true).map((result) => textOf(result as never))
      assert.deepStrictEqual(failed.slice(0, 3), [], `${failed.length} of ${burstSize} calls failed`)
      await ping
      structured(
        await c.client.callTool({ name: "signal_channel", arguments: { channel: "burst" } }, undefined, long) as never
      )
      for (const waiter of await Promise.all(waiters)) {
        assert.strictEqual(
          structured(waiter as never).outcome,
          "signalled"
        )
      }
    },
    300_000
  )
})
