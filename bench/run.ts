/**
 * Benchmarks (not tests): cold start to the first tools/list answer against a bare `node -e 0`
 * start, with a breakdown, and the list_sessions, capture_pane and send_keys round trips over stdio against bare
 * tmux processes spawned from the same client.
 * Prints ratio lines; quote ratios from one run, not absolute times (these machines are noisy).
 * Everything runs on a private TMUX_TMPDIR and is cleaned up.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { execFile, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { runThenRemove } from "./world.ts"

const root = resolve(import.meta.dirname, "..")
const bundled = join(root, "dist/libtmux-mcp.js")
const unbundled = join(root, "dist/bin.js")
const dir = realpathSync(mkdtempSync(join(tmpdir(), "libtmux-mcp-bench-")))
// A private compile cache: the first start fills it, the measured ones read it (as every start after a user's first).
const env = {
  PATH: process.env.PATH ?? "",
  // A home of its own: shells in its panes never read (or leave half-done work in) the account's startup files.
  HOME: dir,
  TMUX_TMPDIR: dir,
  XDG_CACHE_HOME: join(dir, "cache")
}

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
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "0" } }
    })
    send({ jsonrpc: "2.0", method: "notifications/initialized" })
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" })
  })

/** Time for `node -e 0` to exit. */
const bareNode = () => {
  const started = performance.now()
  execFileSync(process.execPath, ["-e", "0"])
  return performance.now() - started
}

/** Time for a Node process that only imports the given modules, to exit. */
const importTime = (modules: ReadonlyArray<string>) => {
  const started = performance.now()
  execFileSync(process.execPath, [
    "--input-type=module",
    "-e",
    modules.map((m) => `import ${JSON.stringify(m)}`).join(";")
  ], { cwd: root })
  return performance.now() - started
}

const repeat = async (runs: number, measure: () => number | Promise<number>) => {
  const values: Array<number> = []
  for (let i = 0; i < runs; i++) values.push(await measure())
  return quantile(values, 0.5)
}

/** Median ratios of interleaved warm calls against a bare tmux process doing the same. */
const roundTrip = async (label: string, target: string, bare: () => Promise<number>, viaMcp: () => Promise<number>) => {
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
  const [floorMedian, floorP90, serverMedian, serverP90] = [
    quantile(floor, 0.5),
    quantile(floor, 0.9),
    quantile(server, 0.5),
    quantile(server, 0.9)
  ]
  console.log(
    `${label} round trip (300 interleaved warm runs): median ${
      (serverMedian / floorMedian).toFixed(2)
    }x the bare tmux floor (${target}), p90 ${(serverP90 / floorP90).toFixed(2)}x`
  )
  console.log(
    `  floor median ${ms(floorMedian)} p90 ${ms(floorP90)}; server median ${ms(serverMedian)} p90 ${ms(serverP90)}`
  )
}

const main = async () => {
  const runs = 15
  await coldStart(bundled)
  const nodeAlone = await repeat(runs, () => importTime([]))
  const sdk = await repeat(
    runs,
    () => importTime(["@modelcontextprotocol/sdk/server/index.js", "@modelcontextprotocol/sdk/server/stdio.js"])
  )
  const effect = await repeat(
    runs,
    () => importTime(["effect/Effect", "effect/Layer", "effect/Schema", "effect/Context", "effect/Result"])
  )
  const unbundledStart = await repeat(runs, () => coldStart(unbundled))
  // Ten launches alternating with a bare start, so both see the same machine.
  const bare: Array<number> = []
  const starts: Array<number> = []
  for (let i = 0; i < 10; i++) {
    bare.push(bareNode())
    starts.push(await coldStart(bundled))
  }
  const [bareStart, bundledStart] = [quantile(bare, 0.5), quantile(starts, 0.5)]
  console.log(
    `cold start to first tools/list (median of 10 alternating): bundled ${ms(bundledStart)}, ${
      (bundledStart / bareStart).toFixed(2)
    }x a bare \`node -e 0\` (${ms(bareStart)}; target <= 4.5x); unbundled ${ms(unbundledStart)}; bundled/unbundled ${
      (bundledStart / unbundledStart).toFixed(2)
    }x`
  )
  console.log(
    `  breakdown: node alone ${ms(nodeAlone)}; + MCP SDK import ${ms(sdk - nodeAlone)}; + Effect imports ${
      ms(effect - nodeAlone)
    } (separately, unbundled, no compile cache); the rest of the bundled start (our code, tmux probe, handshake) ${
      ms(bundledStart - nodeAlone)
    } beyond node alone`
  )

  // Round trips: one warm server over stdio against bare tmux processes, interleaved.
  execFileSync("tmux", ["-L", "libtmux-mcp", "new-session", "-d", "-s", "bench", "cat > /dev/null"], { env })
  const paneId = execFileSync("tmux", ["-L", "libtmux-mcp", "list-panes", "-t", "bench", "-F", "#{pane_id}"], {
    env,
    encoding: "utf8"
  }).trim()
  const transport = new StdioClientTransport({ command: process.execPath, args: [bundled], env, stderr: "ignore" })
  const client = new Client({ name: "bench", version: "0" })
  await client.connect(transport)
  const tmux = (args: ReadonlyArray<string>) => () =>
    new Promise<number>((done, fail) => {
      const started = performance.now()
      execFile("tmux", ["-u", "-L", "libtmux-mcp", ...args], { env }, (error) =>
        error ? fail(error) : done(performance.now() - started))
    })
  const tool = (name: string, args: Record<string, unknown>) => async () => {
    const started = performance.now()
    const result = await client.callTool({ name, arguments: args })
    if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`)
    return performance.now() - started
  }
  const format = "#{session_id}\u001f#{session_name}\u001f#{session_windows}\u001f" +
    "#{session_attached}\u001f#{session_created}\u001f#{session_path}\u001e"
  await roundTrip("list_sessions", "target <= 0.6x", tmux(["list-sessions", "-F", format]), tool("list_sessions", {}))
  await roundTrip(
    "capture_pane",
    "target <= 0.6x",
    tmux(["capture-pane", "-p", "-t", paneId]),
    tool("capture_pane", { pane_id: paneId })
  )
  await roundTrip(
    "send_keys",
    "target <= 0.6x",
    tmux(["send-keys", "-t", paneId, "-l", "--", "x"]),
    tool("send_keys", { pane_id: paneId, keys: "x", literal: true, enter: false })
  )
  await client.close()
}

await runThenRemove(main, dir, env)
