/**
 * Regex stall figures (a standalone script, not a test): one costly RE2 pattern against the built
 * server. Reports how long search_panes and wait_for_text take, how long a ping waits meanwhile, and
 * how long SIGTERM takes to end the process during a search.
 * - the reported pattern: `x{0,1000}` 55 times then `y` (496 characters) over a pane of 40 rows;
 * - a pattern under the program-size bound that defeats RE2's DFA, over 10 rows of 2,000 characters;
 * - `(a+)+$` (catastrophic for a backtracking engine) over a row of 5,000 `a` (test/e2e/pane-tools);
 * - wait_for_text with timeout 1 s while 20 rows costly per row arrive (test/e2e/regex-cost).
 * The e2e tests assert these outcomes under generous bounds; the durations are measured here.
 * Run with `npm run build && node bench/regex-stall.ts` (LIBTMUX_BENCH_BIN runs another build).
 *
 * Measured on a shared 2-core VM, before (matching on the main thread) and after (program-size bound,
 * worker threads, time budget):
 * - reported pattern, search_panes over 40 rows: before 16.6-20.0 s, ping waited 15.7-19.0 s;
 *   after refused (110,003 instructions) in 1.1-1.2 s, ping 0.02 s
 * - reported pattern, wait_for_text timeout 2 s: before returned after 10.8 s; after refused in 1.2 s
 * - bounded pattern, search_panes 10 rows x 2,000 chars: before 4.9-5.2 s, ping waited 3.9-4.2 s;
 *   after 3.8 s, ping 0.00 s
 * - SIGTERM during that search: before exit after 3.8-5.3 s; after exit after 0.03 s
 * - wait_for_text timeout 1 s, 200 costly new rows (test/e2e/regex-cost): before returned after 14.5 s;
 *   after 1.5 s
 */
import type { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { execFileSync } from "node:child_process"
import { benchWorld } from "./world.ts"

const world = benchWorld()
const { env, socket } = world
const reported = "x{0,1000}".repeat(55) + "y"
const underBound = "[xy]{0,900}x[xy]{15}z"
const costlyPerRow = "([xy]{0,60}x){12}z"

const start = world.start
const since = (started: number) => `${((performance.now() - started) / 1000).toFixed(2)} s`
const outcome = (result: any) =>
  result.isError === true
    ? `error: ${result.content[0].text.slice(0, 90)}`
    : JSON.stringify(result.structuredContent).slice(0, 200)

const searchWithPing = async (client: Client, label: string, pattern: string, extra: Record<string, unknown> = {}) => {
  const started = performance.now()
  let pinged = ""
  let ended = ""
  const search = client.callTool({ name: "search_panes", arguments: { pattern, regex: true, ...extra } }, undefined, {
    timeout: 120_000
  })
    .then((result) => ((ended = since(started)), result))
  await new Promise((done) => setTimeout(done, 1000))
  const pingStarted = performance.now()
  await client.ping()
  pinged = since(pingStarted)
  const result = await search
  console.log(`${label}: search_panes ${ended} (${outcome(result)}); a ping sent 1 s in waited ${pinged}`)
}

const main = async () => {
  const { client, transport } = await start()
  const session =
    (await client.callTool({ name: "create_session", arguments: { session_name: "bench", width: 200, height: 45 } }))
      .structuredContent as any
  const pane = session.pane_id as string
  /** Types `line` into the pane as a person would. */
  const type = (line: string) =>
    execFileSync("tmux", ["-S", socket, "send-keys", "-t", pane, "-l", "--", line], { env })
  /** wait_for_text on `pattern`, with `rows` typed into the pane `afterMs` after it starts; prints how it ended. */
  const waitWhileTyping = async (label: string, pattern: string, timeout: number, afterMs: number, rows: string) => {
    const started = performance.now()
    const waiting = client.callTool(
      { name: "wait_for_text", arguments: { pane_id: pane, patterns: [pattern], regex: true, timeout } },
      undefined,
      { timeout: 120_000 }
    )
    await new Promise((done) => setTimeout(done, afterMs))
    type(rows)
    const waited = await waiting
    console.log(`${label}: returned after ${since(started)} (${outcome(waited).slice(0, 60)})`)
  }
  type(`clear; for i in $(seq 40); do printf 'x%.0s' $(seq 150); echo; done\r`)
  await new Promise((done) => setTimeout(done, 1000))
  await searchWithPing(client, "reported pattern, 40 rows", reported)

  await waitWhileTyping(
    "reported pattern, wait_for_text timeout 2 s, new rows 1.2 s in",
    reported,
    2,
    1200,
    `for i in $(seq 10); do printf 'x%.0s' $(seq 150); echo; done\r`
  )

  type("clear; printf 'a%.0s' $(seq 1 5000); echo '!'\r")
  await new Promise((done) => setTimeout(done, 1000))
  let started = performance.now()
  const catastrophic = await client.callTool(
    { name: "search_panes", arguments: { pattern: "(a+)+$", regex: true } },
    undefined,
    { timeout: 120_000 }
  )
  console.log(`(a+)+$ over a row of 5,000 a: search_panes ${since(started)} (${outcome(catastrophic).slice(0, 60)})`)

  let seed = 1
  const long = Array.from(
    { length: 2000 },
    () => (seed = (seed * 1103515245 + 12345) % 2147483648) < 1073741824 ? "x" : "y"
  ).join("")
  type(`clear; for i in $(seq 10); do echo ${long}; done\r`)
  await new Promise((done) => setTimeout(done, 1000))
  await searchWithPing(client, "bounded pattern, 10 rows of 2,000 characters", underBound, { history_lines: 100 })

  await waitWhileTyping(
    "bounded pattern, wait_for_text timeout 2 s, 10 long rows 1.2 s in",
    underBound,
    2,
    1200,
    `clear; for i in $(seq 10); do echo ${long}; done\r`
  )

  await waitWhileTyping(
    "costly-per-row pattern, wait_for_text timeout 1 s, 20 long rows 0.3 s in",
    costlyPerRow,
    1,
    300,
    `clear; for i in $(seq 20); do echo ${long}; done\r`
  )

  const search = client.callTool(
    { name: "search_panes", arguments: { pattern: underBound, regex: true, history_lines: 100 } },
    undefined,
    { timeout: 120_000 }
  ).catch(() => undefined)
  await new Promise((done) => setTimeout(done, 300))
  started = performance.now()
  const closed = new Promise((done) => (transport.onclose = () => done(undefined)))
  process.kill(transport.pid!, "SIGTERM")
  await closed
  console.log(`SIGTERM during that search: the process ended after ${since(started)}`)
  await search
}

main().finally(world.dispose)
