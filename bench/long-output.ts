/**
 * Long output figures (a standalone script, not a test): run_shell_command whose output outgrows
 * the pane's history, with the server pinged every 20 ms meanwhile. Reports each run's answer time
 * against its timeout and the pings' p50, p99 and slowest.
 * - 60,000 lines of 86 characters, the default history (50,000 lines), timeout 60 s;
 * - 1,000,000 lines into a 1,000,000-line history, timeout 90 s;
 * - the same history, output still arriving at a 10 s timeout (the output so far is read back).
 * The e2e test (test/e2e/run-output-start) asserts the outcome of the first; durations are measured here.
 * Run with `npm run bench:long-output` (LIBTMUX_BENCH_BIN runs another build). The 1,000,000-line
 * history holds about 700 MB in the tmux server while it runs.
 *
 * Measured on a shared 2-core VM, before (the echo searched through the whole history on the
 * thread that answers, the history read whole twice) and after (bounded windows, chunked reads):
 * - 60,000 lines: before answered after 257 s (timeout 60 s), pings p99 124 s, slowest 133 s;
 *   after 0.62 s, pings p50 2.5 ms, p99 12.2 ms, slowest 29 ms
 * - 1,000,000 lines into a 1,000,000-line history: before not measured (the first case did not end
 *   in time); after 7.8 s for the whole run (seq and tmux included), exit 0, truncated 999,000 lines
 *   counted exactly, pings p99 11.7 ms, slowest 24 ms
 * - output still arriving at a 10 s timeout: after answered at 10.4 s, pings p99 21.4 ms, slowest 64 ms
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { execFileSync } from "node:child_process"
import { benchWorld } from "./world.ts"

const world = benchWorld(["set -g history-limit 50000"])
const { env, socket } = world

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length - 1) * p))] ?? 0

/**
 * Runs `command` in `pane` while pinging, resuming while a heavy writer counts as blocked (it waits
 * on the terminal's flow control); prints the time to the final answer and the pings' figures.
 */
const runWithPings = async (client: Client, label: string, pane: string, command: string, timeout: number) => {
  const pings: Array<number> = []
  let done = false
  const pinging = (async () => {
    while (!done) {
      const started = performance.now()
      await client.ping({ timeout: 300_000 })
      pings.push(performance.now() - started)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })()
  const started = performance.now()
  const deadline = started + timeout * 1000
  let calls = 1
  let result = await client.callTool(
    { name: "run_shell_command", arguments: { pane_id: pane, command, timeout } },
    undefined,
    { timeout: 600_000 }
  )
  let fields = result.structuredContent as Record<string, unknown> | undefined
  while (typeof fields?.blocked_by === "string" && performance.now() < deadline) {
    calls++
    const left = Math.max(1, Math.round((deadline - performance.now()) / 1000))
    result = await client.callTool(
      { name: "run_shell_command", arguments: { pane_id: pane, resume: fields.run_id, timeout: left } },
      undefined,
      { timeout: 600_000 }
    )
    fields = result.structuredContent as Record<string, unknown> | undefined
  }
  const took = (performance.now() - started) / 1000
  done = true
  await pinging
  const sorted = [...pings].sort((a, b) => a - b)
  const summary = fields === undefined
    ? `error: ${JSON.stringify(result.content).slice(0, 120)}`
    // Fields at their usual value (false, 0) are left out of a result.
    : `exit ${fields.exit_status}, timed_out ${fields.timed_out ?? false}, ` +
      `start lost ${fields.output_start_lost ?? false}, truncated ${fields.truncated_lines ?? 0} lines`
  console.log(
    `${label}: answered in ${
      took.toFixed(2)
    } s, ${calls} call(s) (timeout ${timeout} s; ${summary}); ${pings.length} pings ` +
      `p50 ${percentile(sorted, 0.5).toFixed(1)} ms, p99 ${percentile(sorted, 0.99).toFixed(1)} ms, ` +
      `slowest ${(sorted.at(-1) ?? 0).toFixed(1)} ms`
  )
  return fields
}

const main = async () => {
  const { client } = await world.start()
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })).structuredContent as any
  const first = await call("create_session", { session_name: "long", width: 120, height: 40 })
  // A first run loads the code runs use: its cost is start-up's, not long output's.
  await call("run_shell_command", { pane_id: first.pane_id, command: "true", timeout: 30 })
  await runWithPings(client, "60,000 lines, 50,000-line history", first.pane_id, "seq -f '%085g' 1 60000", 60)

  await call("set_history_limit", { global: true, lines: 1_000_000 })
  const big = await call("create_session", { session_name: "big", width: 120, height: 40 })
  await call("run_shell_command", { pane_id: big.pane_id, command: "true", timeout: 30 })
  await runWithPings(client, "1,000,000 lines, 1,000,000-line history", big.pane_id, "seq -f '%085g' 1 1000000", 90)
  const held = await runWithPings(
    client,
    "1,000,000-line history, output still arriving at a 10 s timeout",
    big.pane_id,
    "seq -f '%085g' 1 3000000",
    10
  )
  if (typeof held?.run_id === "string") {
    execFileSync("tmux", ["-S", socket, "send-keys", "-t", big.pane_id, "C-c"], { env })
    await call("run_shell_command", { pane_id: big.pane_id, resume: held.run_id, timeout: 60 })
  }
  await client.close()
}

main().finally(world.dispose)
