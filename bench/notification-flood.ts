/**
 * Notification flood figures (a standalone script, not a test): what a client's notifications cost
 * the built server. Each kind is sent 100,000 times in one write, then a ping; reported: the
 * server's CPU time per notification (from /proc), how long the ping waited behind them, and the
 * server's resident memory after. Notifications get no answer, so a flood costs the thread that
 * answers requests only its parsing time, in the order the lines arrive.
 * Run with `npm run build && node bench/notification-flood.ts` (LIBTMUX_BENCH_BIN runs another build).
 *
 * Measured on a shared 2-core VM (load about 15 from other work), per kind: CPU per notification,
 * the ping's wait, RSS after; see docs/trust-model.md, "Hostile input on the wire and in patterns".
 */
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { benchWorld } from "./world.ts"

const count = 100_000
const world = benchWorld()
const root = resolve(import.meta.dirname, "..")

const kinds: ReadonlyArray<readonly [string, string]> = [
  ["notifications/initialized (again)", JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })],
  [
    "notifications/cancelled for no request",
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99_999, reason: "x" } })
  ],
  [
    "notifications/progress for no request",
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 7, progress: 1 } })
  ],
  ["an unknown notification", JSON.stringify({ jsonrpc: "2.0", method: "notifications/whatever", params: { a: 1 } })],
  ["a response to no request", JSON.stringify({ jsonrpc: "2.0", id: 123_456, result: {} })]
]

/** The process's user plus system CPU time, in ms. */
const cpuMs = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/u.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024

const main = async () => {
  const child = spawn(process.execPath, [process.env.LIBTMUX_BENCH_BIN ?? join(root, "dist/libtmux-mcp.js")], {
    env: world.env,
    stdio: ["pipe", "pipe", "ignore"]
  })
  let pending = ""
  const waiting = new Map<unknown, () => void>()
  child.stdout.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8")
    const lines = pending.split("\n")
    pending = lines.pop()!
    for (const line of lines) waiting.get((JSON.parse(line) as { id?: unknown }).id)?.()
  })
  const request = (id: string, method: string, params?: unknown) =>
    new Promise<void>((done) => {
      waiting.set(id, done)
      child.stdin.write(
        `${JSON.stringify({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) })}\n`
      )
    })
  await request("init", "initialize", {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "bench", version: "0" }
  })
  child.stdin.write(`${kinds[0]![1]}\n`)
  await request("warm", "ping")
  for (const [label, line] of kinds) {
    const before = cpuMs(child.pid!)
    const started = performance.now()
    child.stdin.write(`${line}\n`.repeat(count))
    await request(label, "ping")
    const waited = performance.now() - started
    const used = cpuMs(child.pid!) - before
    console.log(
      `${label}: ${(used * 1000 / count).toFixed(1)} µs of server CPU each; a ping after ${count} waited ` +
        `${(waited / 1000).toFixed(2)} s; RSS ${rssMb(child.pid!).toFixed(0)} MB`
    )
  }
  child.kill()
}

main().finally(world.dispose)
