/**
 * Burst benchmark (not a test): pending wait_for_channel calls, then 2,000 concurrent inspect calls
 * (list_sessions and get_pane_info, alternating), then one signal_channel that releases the waiters.
 * Reports the burst's duration and failures, when its first, median and last answers came, ping
 * latency before, during and after it, and two
 * floors from the same run: 2,000 bare tmux list-sessions at the server's pool size, and 2,000
 * concurrent pings (the MCP SDK's own per-request handling, no tmux).
 * Usage: node bench/burst.ts [server entry, default dist/libtmux-mcp.js]
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { execFile, execFileSync } from "node:child_process"
import { mkdtempSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { poolSize } from "../src/platform/TmuxExec.ts"
import { runThenRemove } from "./world.ts"

const root = resolve(import.meta.dirname, "..")
const entry = resolve(process.argv[2] ?? join(root, "dist/libtmux-mcp.js"))
const dir = realpathSync(mkdtempSync(join(tmpdir(), "libtmux-mcp-bench-")))
const env = {
  PATH: process.env.PATH ?? "",
  // A home of its own: shells in its panes never read (or leave half-done work in) the account's startup files.
  HOME: dir,
  TMUX_TMPDIR: dir,
  LIBTMUX_TOOLSETS: "inspect,manage"
}
const burstSize = 2_000
const waiterCount = 8
const long = { timeout: 600_000 }

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}
const ms = (value: number) => `${value.toFixed(0)} ms`
const timed = async (work: () => Promise<unknown>): Promise<number> => {
  const started = performance.now()
  await work()
  return performance.now() - started
}

/** Pings one after another, spaced by `gapMs`, until `done()`; returns each latency. */
const pingWhile = async (client: Client, done: () => boolean, gapMs: number) => {
  const latencies: Array<number> = []
  while (!done()) {
    latencies.push(await timed(() => client.ping(long)))
    await new Promise((wake) => setTimeout(wake, gapMs))
  }
  return latencies
}

/** `count` runs of `job`, at most `width` at once. */
const withWidth = async (count: number, width: number, job: () => Promise<unknown>) => {
  let next = 0
  await Promise.all(Array.from({ length: width }, async () => {
    while (next++ < count) await job()
  }))
}

const main = async () => {
  execFileSync("tmux", ["-L", "libtmux-mcp", "-f", "/dev/null", "new-session", "-d", "-s", "bench"], { env })
  const pane = execFileSync("tmux", ["-L", "libtmux-mcp", "display-message", "-p", "-t", "bench", "#{pane_id}"], {
    env,
    encoding: "utf8"
  }).trim()
  const transport = new StdioClientTransport({ command: process.execPath, args: [entry], env, stderr: "ignore" })
  const client = new Client({ name: "bench", version: "0" })
  await client.connect(transport)

  const bareTmux = await timed(() =>
    withWidth(
      burstSize,
      poolSize(),
      () =>
        new Promise((done, fail) =>
          execFile("tmux", ["-L", "libtmux-mcp", "list-sessions"], { env }, (error) =>
            error ? fail(error) : done(undefined))
        )
    )
  )
  const pingBurst = await timed(() => Promise.all(Array.from({ length: burstSize }, () => client.ping(long))))
  const idle = await pingWhile(client, ((n) => () => n++ >= 20)(0), 10)

  const waiters = Array.from(
    { length: waiterCount },
    () => client.callTool({ name: "wait_for_channel", arguments: { channel: "burst", timeout: 600 } }, undefined, long)
  )
  await new Promise((wake) => setTimeout(wake, 1_000))
  let finished = false
  const started = performance.now()
  // When each call answered, from the burst's start: early calls should answer early.
  const answeredAt: Array<number> = []
  const burst = Promise.allSettled(
    Array.from({ length: burstSize }, (_, i) =>
      client.callTool(
        i % 2 === 0
          ? { name: "list_sessions", arguments: {} }
          : { name: "get_pane_info", arguments: { pane_id: pane } },
        undefined,
        long
      ).finally(() => answeredAt.push(performance.now() - started)))
  )
  const during = pingWhile(client, () => finished, 100)
  const results = await burst
  const burstMs = performance.now() - started
  finished = true
  const pings = await during
  const failed = results.filter((result) => result.status === "rejected" || result.value.isError === true).length
  const signal = await timed(() =>
    client.callTool({ name: "signal_channel", arguments: { channel: "burst" } }, undefined, long)
  )
  const released =
    (await Promise.allSettled(waiters)).filter((result) =>
      result.status === "fulfilled" && result.value.isError !== true
    ).length
  const after = await pingWhile(client, ((n) => () => n++ >= 20)(0), 10)
  await client.close()

  console.log(`server ${entry}; pool size ${poolSize()} on this machine`)
  console.log(
    `burst of ${burstSize} inspect calls beside ${waiterCount} waiters: ${ms(burstMs)} (${
      (burstMs / burstSize).toFixed(1)
    } ms per call), ${failed} failed`
  )
  console.log(
    `  answers from the burst's start: first ${ms(quantile(answeredAt, 0))}, median ${
      ms(quantile(answeredAt, 0.5))
    }, p90 ${ms(quantile(answeredAt, 0.9))}, last ${ms(Math.max(...answeredAt))}`
  )
  console.log(
    `  ping during the burst (${pings.length} pings, one every 100 ms): median ${ms(quantile(pings, 0.5))}, p90 ${
      ms(quantile(pings, 0.9))
    }, max ${ms(Math.max(...pings))}; the first (sent behind all ${burstSize} calls) ${ms(pings[0] ?? Number.NaN)}`
  )
  console.log(`  ping idle before: median ${ms(quantile(idle, 0.5))}; after: median ${ms(quantile(after, 0.5))}`)
  console.log(`  signal_channel after the burst: ${ms(signal)}; waiters released: ${released} of ${waiterCount}`)
  console.log(
    `floors: ${burstSize} bare tmux list-sessions, ${poolSize()} at once: ${
      ms(bareTmux)
    }; ${burstSize} concurrent pings through the SDK: ${ms(pingBurst)}`
  )
}

await runThenRemove(main, dir, env)
