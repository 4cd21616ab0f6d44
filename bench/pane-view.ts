/**
 * Pane view benchmark (not a test): what an idle pane view costs the server, polling view_pane
 * once a second with the digest of the frame it shows, as the view does.
 * - the unchanged answer's size: the tool result's JSON and the whole JSON-RPC line (target <= 200 bytes);
 * - processor time over 30 s, as a share of one core (the server with its tmux clients, and the tmux
 *   server), of: an idle view polling once a second; the same server with no view; interleaved, three
 *   rounds each, medians (target: the view adds <= 1% of a core in the server);
 * - a full frame's size and the time of a poll that answers one (a 120x40 pane of coloured text).
 * Usage: node bench/pane-view.ts (after npm run build).
 */
import { spawn } from "node:child_process"
import { join, resolve } from "node:path"
import { createInterface } from "node:readline"
import { benchWorld, coreShare, quantile, sleep } from "./world.ts"

const idleMs = Number(process.env.LIBTMUX_BENCH_IDLE_MS ?? 30_000)
const rounds = Number(process.env.LIBTMUX_BENCH_ROUNDS ?? 3)
const world = benchWorld()

const startServer = () => {
  const child = spawn(process.execPath, [join(resolve(import.meta.dirname, ".."), "dist/libtmux-mcp.js")], {
    env: { ...world.env, LIBTMUX_TOOLSETS: "inspect,manage,execute,teardown" },
    stdio: ["pipe", "pipe", "ignore"]
  })
  const waiting = new Map<number, (message: { line: string; parsed: any }) => void>()
  let next = 0
  createInterface({ input: child.stdout }).on("line", (line) => {
    const parsed = JSON.parse(line)
    waiting.get(parsed.id)?.({ line, parsed })
    waiting.delete(parsed.id)
  })
  const request = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<{ line: string; parsed: any }>((done) => {
      const id = ++next
      waiting.set(id, done)
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`)
    })
  return { child, request }
}

const main = async () => {
  const { child, request } = startServer()
  await request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } },
    clientInfo: { name: "bench", version: "0" }
  })
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`)
  const call = async (name: string, args: Record<string, unknown>) =>
    (await request("tools/call", { name, arguments: args })).parsed.result
  const pane =
    (await call("create_session", { session_name: "view", width: 120, height: 40 })).structuredContent.pane_id
  await call("run_shell_command", {
    pane_id: pane,
    command: "for i in $(seq 1 38); do printf '\\033[3%dm%s \\033[1;4%dm%s\\033[0m\\n' $((i % 8)) " +
      "\"line $i of coloured text\" $((i % 8)) \"$(printf '%080d' $i)\"; done"
  })
  const tmuxPid = Number((await world.tmux("display-message", "-p", "#{pid}")).trim())
  const full: Array<number> = []
  let frameBytes = 0
  for (let round = 0; round < 10; round++) {
    const started = performance.now()
    const answer = await request("tools/call", { name: "view_pane", arguments: { pane_id: pane } })
    full.push(performance.now() - started)
    frameBytes = answer.line.length
  }
  const digest = (await call("view_pane", { pane_id: pane })).structuredContent.digest
  const unchanged = await request("tools/call", { name: "view_pane", arguments: { pane_id: pane, since: digest } })
  const view: Array<number> = []
  const none: Array<number> = []
  for (let round = 0; round < rounds; round++) {
    view.push(
      (await coreShare(child.pid!, tmuxPid, async () => {
        const until = performance.now() + idleMs
        while (performance.now() < until) {
          await request("tools/call", { name: "view_pane", arguments: { pane_id: pane, since: digest } })
          await sleep(1_000)
        }
      })).parts[0]
    )
    none.push((await coreShare(child.pid!, tmuxPid, () => sleep(idleMs))).parts[0])
  }
  const pct = (share: number) => `${(share * 100).toFixed(2)}%`
  console.log(
    `an unchanged poll's answer: ${JSON.stringify(unchanged.parsed.result).length} bytes as a tool result, ` +
      `${unchanged.line.length} bytes as the JSON-RPC line (target <= 200)`
  )
  console.log(
    `a full frame (120x40, coloured): ${frameBytes} bytes, a poll answering one: median ${
      quantile(full, 0.5).toFixed(1)
    } ms, max ${Math.max(...full).toFixed(1)} ms`
  )
  const [medianView, medianNone] = [quantile(view, 0.5), quantile(none, 0.5)]
  console.log(
    `the server's share of one core over ${idleMs / 1000} s, medians of ${rounds}: an idle view polling once a ` +
      `second ${pct(medianView)} [${view.map(pct).join(", ")}], no view ${pct(medianNone)} [${
        none.map(pct).join(", ")
      }]: the view adds ${pct(medianView - medianNone)} (target <= 1%)`
  )
  child.stdin.end()
  await new Promise((done) => child.on("close", done))
}

try {
  await main()
} finally {
  world.dispose()
}
