/**
 * Costly regular expressions through the real stack: the program-size bound refuses the reported
 * pattern (`x{0,1000}` 55 times then `y`, 496 characters) with a clear error, matching runs off the
 * event loop so a ping is answered while a costly search runs, wait_for_text ends at its timeout
 * while matching, and a cancelled search stops matching.
 */
import type { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { readFileSync } from "node:fs"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { call, type Connected, structured, textOf } from "../support/mcp.ts"
import { until } from "../support/poll.ts"
import { shellEnv } from "../support/shells.ts"

const h = harness("regex")
const reported = "x{0,1000}".repeat(55) + "y"
/**
 * Under the program-size bound, yet costly: RE2's DFA gives up on it
 * and the NFA steps ~1,800 instructions a character.
 */
const costly = "[xy]{0,900}x[xy]{15}z"
/** Costly on short rows too (~20 ms a row of 200 characters), for wait_for_text, which matches screen rows. */
const costlyPerRow = "([xy]{0,60}x){12}z"
let seed = 7
const noise = Array.from(
  { length: 2000 },
  () => (seed = (seed * 1103515245 + 12345) % 2147483648) < 1073741824 ? "x" : "y"
).join("")

const open = async () => {
  const world = h.world()
  const c = await h.connect(world, shellEnv(world, "/bin/bash"))
  const pane = structured(await call(c, "create_session", { session_name: "work", width: 200, height: 50 }))
    .pane_id as string
  return { world, c, pane }
}

/** Prints `rows` long lines of x and y (each wraps over 10 screen rows; capture -J joins them). */
const printNoise = (world: ReturnType<typeof h.world>, pane: string, rows: number) =>
  world.tmux(
    "libtmux-mcp",
    "send-keys",
    "-t",
    pane,
    "-l",
    "--",
    `clear; for i in $(seq ${rows}); do echo ${noise}; done\r`
  )

/** Waits until the pane's history holds `rows` rows that are all `row`. */
const printed = (world: ReturnType<typeof h.world>, pane: string, row: string, rows: number) =>
  until(
    `${rows} printed rows`,
    () => world.tmux("libtmux-mcp", "capture-pane", "-p", "-J", "-S", "-", "-t", pane).split("\n"),
    (lines) => lines.filter((line) => line === row).length >= rows
  )

/**
 * Pings under a generous bound: the answer, not its latency, is the point (bench/regex-stall.ts
 * measures how long it waits).
 */
const ping = (c: Connected) => c.client.ping({ timeout: 5_000 })

/** CPU seconds the server process has used (all its threads). */
const cpuSeconds = (c: Connected) => {
  const pid = (c.client.transport as StdioClientTransport).pid!
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/**
 * A read of the CPU seconds the server used since the previous read (NaN the first time, which
 * only starts the count): read by `until` every quarter second, what it used in each.
 */
const cpuSincePrevious = (c: Connected) => {
  let previous: number | undefined
  return () => {
    const now = cpuSeconds(c)
    const used = previous === undefined ? Number.NaN : now - previous
    previous = now
    return used
  }
}
const quarterSecond = { intervalMs: 250 }

/** Waits until the server is matching (busy for most of a quarter second). */
const matching = (c: Connected) =>
  until("the server to be matching", cpuSincePrevious(c), (used) => used > 0.1, quarterSecond)

describe("costly regular expressions", () => {
  it("search_panes and wait_for_text refuse the reported pattern by its program size, at once", async () => {
    const { world, c, pane } = await open()
    world.tmux(
      "libtmux-mcp",
      "send-keys",
      "-t",
      pane,
      "-l",
      "--",
      "for i in $(seq 40); do printf 'x%.0s' $(seq 150); echo; done\r"
    )
    await printed(world, pane, "x".repeat(150), 40)
    // Refused before any matching: the answer comes within a bound that a search over the pane
    // would exceed (16-20 s before the bound; bench/regex-stall.ts measures it), the compile's
    // own budget (10 s, for a loaded machine) included.
    const search = call(c, "search_panes", { pattern: reported, regex: true }, { timeout: 14_000 })
    await ping(c)
    const refused = await search
    assert.isTrue(refused.isError)
    assert.strictEqual(refused._meta?.["com.git-pull.libtmux-mcp/error"], "PatternInvalid")
    assert.match(textOf(refused), /compiles to a program of 110003 instructions, more than the 2000 allowed/u)
    const waited = await call(c, "wait_for_text", {
      pane_id: pane,
      patterns: ["ok", reported],
      regex: true,
      timeout: 1
    }, { timeout: 14_000 })
    assert.strictEqual(waited._meta?.["com.git-pull.libtmux-mcp/error"], "PatternInvalid")
    assert.match(textOf(waited), /^invalid pattern: pattern 2: it compiles to a program of 110003 instructions/u)
  })

  it("answers a ping while a costly search runs; the search ends with its result or the budget error", async () => {
    const { world, c, pane } = await open()
    printNoise(world, pane, 10)
    await printed(world, pane, noise, 10)
    let searchEnded = false
    const search = call(c, "search_panes", { pattern: costly, regex: true, history_lines: 200 }).finally(
      () => (searchEnded = true)
    )
    await matching(c)
    await ping(c)
    assert.isFalse(searchEnded, "the ping was answered while the search was still running")
    const result = await search
    if (result.isError === true) {
      assert.strictEqual(result._meta?.["com.git-pull.libtmux-mcp/error"], "PatternTooCostly")
    } else assert.strictEqual(structured(result).panes_matched, 0)
  })

  it("wait_for_text ends at its timeout while a costly pattern is being matched", async () => {
    const { world, c, pane } = await open()
    // A timeout of 1 s answered within 8 s: matching that ran on would take 14 s (bench/regex-stall.ts measures it).
    const waiting = call(c, "wait_for_text", { pane_id: pane, patterns: [costlyPerRow], regex: true, timeout: 1 }, {
      timeout: 8_000
    })
    await until(
      "the server to begin the wait",
      c.stderr,
      (text) => /"event":"tool_call_intent".*"wait_for_text"/u.test(text)
    )
    printNoise(world, pane, 20)
    const result = structured(await waiting)
    assert.strictEqual(result.outcome, "timeout")
  })

  it("a cancelled search stops matching", async () => {
    const { world, c, pane } = await open()
    printNoise(world, pane, 10)
    await printed(world, pane, noise, 10)
    const controller = new AbortController()
    const search = c.client.callTool(
      { name: "search_panes", arguments: { pattern: costly, regex: true, history_lines: 200 } },
      undefined,
      { signal: controller.signal }
    )
      .catch(() => undefined)
    await matching(c)
    controller.abort()
    await search
    // Matching that ran on would keep the server busy for seconds more.
    await until("the cancelled search to stop matching", cpuSincePrevious(c), (used) => used < 0.05, {
      ...quarterSecond,
      timeoutMs: 3_000
    })
    assert.strictEqual(structured(await call(c, "search_panes", { pattern: "x+y", regex: true })).panes_searched, 1)
  })
})
