/**
 * A server's whole life (a standalone script, not a test): start on a fresh socket, create_session,
 * list_sessions, then a quiet 1.2 s (past the startup sweep), then stdin's end. Per life: the tmux
 * clients it forked (a tmux that logs each invocation, then runs the real one) and the processor time
 * of the whole machine meanwhile (/proc/stat: the server, its clients, the tmux server, the kernel).
 * Lives alternate with a base build's (LIBTMUX_BENCH_BASE=<its dist/libtmux-mcp.js>), so both see
 * the same machine. Usage: node bench/server-life.ts (LIBTMUX_BENCH_LIVES=n, 12 by default).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { quantile, sleep } from "./world.ts"

const lives = Number(process.env.LIBTMUX_BENCH_LIVES ?? 12)
const entries = [
  ["this build", resolve(import.meta.dirname, "../dist/libtmux-mcp.js")],
  ...(process.env.LIBTMUX_BENCH_BASE === undefined ? [] : [["base", resolve(process.env.LIBTMUX_BENCH_BASE)]])
] as const
const real = execFileSync("sh", ["-c", "command -v tmux"], { encoding: "utf8" }).trim()

/** Busy processor time of the whole machine so far, in seconds (user, nice, system, irq, softirq). */
const busy = () => {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0]!.split(/\s+/u).slice(1).map(Number)
  return (fields[0]! + fields[1]! + fields[2]! + fields[5]! + fields[6]!) / 100
}

/** One life of the server at `entry` in a fresh folder: its forked clients and the machine's time. */
const life = async (entry: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "libtmux-mcp-life-")))
  const log = join(dir, "invocations.log")
  const wrapper = join(dir, "tmux-logging")
  // One byte per client in the count; its arguments (which may span lines) in the log.
  writeFileSync(
    wrapper,
    `#!/bin/sh\nprintf . >> '${log}.count'\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`
  )
  chmodSync(wrapper, 0o755)
  const env = { PATH: process.env.PATH ?? "", HOME: dir, SHELL: "/bin/sh", TMUX_TMPDIR: dir, LIBTMUX_TMUX_BIN: wrapper }
  const started = busy()
  try {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [entry],
      env,
      cwd: dir,
      stderr: "ignore"
    })
    const client = new Client({ name: "server-life", version: "0" })
    await client.connect(transport)
    await client.callTool({ name: "create_session", arguments: { session_name: "life" } })
    await client.callTool({ name: "list_sessions", arguments: {} })
    await sleep(1200)
    await client.close()
    const cpu = busy() - started
    if (process.env.LIBTMUX_BENCH_VERBOSE !== undefined) console.log(readFileSync(log, "utf8"))
    return { clients: existsSync(`${log}.count`) ? readFileSync(`${log}.count`, "utf8").length : 0, cpu }
  } finally {
    try {
      execFileSync(real, ["-S", join(dir, `tmux-${process.getuid?.() ?? 0}`, "libtmux-mcp"), "kill-server"], {
        stdio: "ignore"
      })
    } catch {
      // No server left.
    }
    rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
  }
}

const results = entries.map(() => ({ clients: [] as Array<number>, cpu: [] as Array<number> }))
for (let round = 0; round < lives; round++) {
  for (const [i, [, entry]] of entries.entries()) {
    const { clients, cpu } = await life(entry)
    results[i]!.clients.push(clients)
    results[i]!.cpu.push(cpu)
  }
}
for (const [i, [name, entry]] of entries.entries()) {
  const { clients, cpu } = results[i]!
  console.log(
    `${name} (${entry}): ${quantile(clients, 0.5)} tmux clients forked per life (min ${Math.min(...clients)}, ` +
      `max ${Math.max(...clients)}); machine processor time per life median ${
        (quantile(cpu, 0.5) * 1000).toFixed(0)
      } ms`
  )
}
if (entries.length === 2) {
  const ratio = quantile(results[0]!.cpu, 0.5) / quantile(results[1]!.cpu, 0.5)
  console.log(`this build / base, machine processor time per life: ${ratio.toFixed(3)}x`)
}
