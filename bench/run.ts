/**
 * Benchmarks (not tests): cold start to the first tools/list answer, with a breakdown, and the
 * list_sessions round trip over stdio against bare tmux processes spawned from the same client.
 * Prints ratio lines; quote ratios from one run, not absolute times (these machines are noisy).
 * Everything runs on a private TMUX_TMPDIR and is cleaned up.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { execFile, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")
const bundled = join(root, "dist/libtmux-mcp.js")
const unbundled = join(root, "dist/bin.js")
const dir = realpathSync(mkdtempSync(join(tmpdir(), "libtmux-mcp-bench-")))
const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", TMUX_TMPDIR: dir }

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}
const ms = (value: number) => `${value.toFixed(1)} ms`

/** Time from spawn to the first tools/list answer on stdout. */
const coldStart = (entry: string) =>
  new Promise<number>((done) => {
    const started = performance.now()
    const child = spawn(process.execPath, [entry], { env })
    let out = ""
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
      if (out.includes(`"id":2`)) {
        done(performance.now() - started)
        child.kill()
      }
    })
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`)
    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "0" } } })
    send({ jsonrpc: "2.0", method: "notifications/initialized" })
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" })
  })

/** Time for a Node process that only imports the given modules, to exit. */
const importTime = (modules: ReadonlyArray<string>) => {
  const started = performance.now()
  execFileSync(process.execPath, ["--input-type=module", "-e", modules.map((m) => `import ${JSON.stringify(m)}`).join(";")], { cwd: root })
  return performance.now() - started
}

const repeat = async (runs: number, measure: () => number | Promise<number>) => {
  const values: Array<number> = []
  for (let i = 0; i < runs; i++) values.push(await measure())
  return quantile(values, 0.5)
}

const main = async () => {
  const runs = 15
  const nodeAlone = await repeat(runs, () => importTime([]))
  const sdk = await repeat(runs, () => importTime(["@modelcontextprotocol/sdk/server/index.js", "@modelcontextprotocol/sdk/server/stdio.js"]))
  const effect = await repeat(runs, () => importTime(["effect/Effect", "effect/Layer", "effect/Schema", "effect/Context", "effect/Result"]))
  const bundledStart = await repeat(runs, () => coldStart(bundled))
  const unbundledStart = await repeat(runs, () => coldStart(unbundled))
  console.log(`cold start to first tools/list (median of ${runs}): bundled ${ms(bundledStart)} (target < 150 ms), unbundled ${ms(unbundledStart)}; bundled/unbundled ${(bundledStart / unbundledStart).toFixed(2)}x`)
  console.log(`  breakdown: node alone ${ms(nodeAlone)}; + MCP SDK import ${ms(sdk - nodeAlone)}; + Effect imports ${ms(effect - nodeAlone)} (separately, unbundled); the rest of the bundled start (our code, tmux probe, handshake) ${ms(bundledStart - nodeAlone)} beyond node alone`)

  // Round trip: one warm server over stdio against bare tmux processes, interleaved.
  execFileSync("tmux", ["-L", "libtmux-mcp", "new-session", "-d", "-s", "bench"], { env })
  const transport = new StdioClientTransport({ command: process.execPath, args: [bundled], env, stderr: "ignore" })
  const client = new Client({ name: "bench", version: "0" })
  await client.connect(transport)
  const format = "#{session_id}\u001f#{session_name}\u001f#{session_windows}\u001f#{session_attached}\u001f#{session_created}\u001f#{session_path}\u001e"
  const bare = () =>
    new Promise<number>((done, fail) => {
      const started = performance.now()
      execFile("tmux", ["-u", "-L", "libtmux-mcp", "list-sessions", "-F", format], { env }, (error) => error ? fail(error) : done(performance.now() - started))
    })
  const viaMcp = async () => {
    const started = performance.now()
    const result = await client.callTool({ name: "list_sessions", arguments: {} })
    if (result.isError === true) throw new Error("list_sessions failed")
    return performance.now() - started
  }
  for (let i = 0; i < 30; i++) {
    await bare()
    await viaMcp()
  }
  const floor: Array<number> = []
  const server: Array<number> = []
  for (let i = 0; i < 300; i++) {
    floor.push(await bare())
    server.push(await viaMcp())
  }
  await client.close()
  const [floorMedian, floorP90, serverMedian, serverP90] = [quantile(floor, 0.5), quantile(floor, 0.9), quantile(server, 0.5), quantile(server, 0.9)]
  console.log(`list_sessions round trip (300 interleaved warm runs): median ${(serverMedian / floorMedian).toFixed(2)}x the bare tmux floor (target <= 1.25x), p90 ${(serverP90 / floorP90).toFixed(2)}x (target <= 1.4x)`)
  console.log(`  floor median ${ms(floorMedian)} p90 ${ms(floorP90)}; server median ${ms(serverMedian)} p90 ${ms(serverP90)}`)
}

try {
  await main()
} finally {
  try {
    execFileSync("tmux", ["-L", "libtmux-mcp", "kill-server"], { env, stdio: "ignore" })
  } catch {
    // No server left.
  }
  rmSync(dir, { recursive: true, force: true })
}
