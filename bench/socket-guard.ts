/**
 * Benchmark (not a test): what the socket-place check adds to each tmux invocation on a `path:`
 * socket (an lstat of the socket and one of its lock), against spawning a bare `tmux -V`, the least
 * a tmux invocation costs. Everything runs in a private folder that is removed.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { checkPlace, placeOf } from "../src/domain/socketPlace.ts"
import { liveReader } from "../src/platform/SocketGuard.ts"

const dir = realpathSync(mkdtempSync(join(tmpdir(), "libtmux-mcp-bench-guard-")))
const socket = join(dir, "agent.sock")
const server = createServer()
await new Promise<void>((resolve) => server.listen(socket, resolve))
try {
  const place = placeOf(socket, process.getuid?.() ?? 0, liveReader)
  if ("detail" in place) throw new Error(place.detail)
  const rounds = 100_000
  for (let i = 0; i < 10_000; i++) checkPlace(place, liveReader, "connect")
  let started = process.hrtime.bigint()
  for (let i = 0; i < rounds; i++) {
    if (checkPlace(place, liveReader, "connect") !== undefined) throw new Error("refused")
  }
  const checkUs = Number(process.hrtime.bigint() - started) / 1000 / rounds
  const spawns = 50
  started = process.hrtime.bigint()
  for (let i = 0; i < spawns; i++) execFileSync("tmux", ["-V"])
  const spawnUs = Number(process.hrtime.bigint() - started) / 1000 / spawns
  console.log(`socket-place check: ${checkUs.toFixed(2)} us per invocation`)
  console.log(`tmux -V spawn:      ${spawnUs.toFixed(0)} us per invocation`)
  console.log(`ratio: the check is ${(100 * checkUs / spawnUs).toFixed(3)} % of the cheapest tmux invocation`)
} finally {
  server.close()
  rmSync(dir, { recursive: true, force: true })
}
