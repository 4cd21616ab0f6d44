/**
 * What the standalone benchmarks share: a private folder with a quiet bash prompt and a tmux
 * configuration, the built server started in it under the SDK's client, and its removal (the tmux
 * server included) whatever the benchmark did.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { execFile, execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

/** The `q` quantile of `values` (the median at 0.5). */
export const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}

/** A pause of `ms`. */
export const sleep = (ms: number) => new Promise((wake) => setTimeout(wake, ms))

/** Processor time in clock ticks (USER_HZ, 100 a second) of `pid`: [own user + system, reaped children's]. */
export const ticks = (pid: number | "self") => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  const [user, system, childUser, childSystem] = [11, 12, 13, 14].map((i) => Number(fields[i]))
  return [user! + system!, childUser! + childSystem!] as const
}

/** Shares of one core over `work`: the server itself, its tmux clients, the tmux server, and their sum. */
export const coreShare = async (serverPid: number, tmuxPid: number, work: () => Promise<unknown>) => {
  const [server, clients] = ticks(serverPid)
  const [tmuxServer] = ticks(tmuxPid)
  const started = performance.now()
  await work()
  const wall = performance.now() - started
  const [serverAfter, clientsAfter] = ticks(serverPid)
  const [tmuxAfter] = ticks(tmuxPid)
  const share = (count: number) => (count * 10) / wall
  const parts = [share(serverAfter - server), share(clientsAfter - clients), share(tmuxAfter - tmuxServer)] as const
  return { parts, total: parts[0] + parts[1] + parts[2] }
}
/**
 * Runs a benchmark's `main`, then removes its dedicated tmux server (on `env`'s TMUX_TMPDIR) and
 * its folder, whatever `main` did. Shells write their history as they exit: the removal retries.
 */
export const runThenRemove = async (
  main: () => Promise<void>,
  dir: string,
  env: Readonly<Record<string, string>>
): Promise<void> => {
  try {
    await main()
  } finally {
    try {
      execFileSync("tmux", ["-L", "libtmux-mcp", "kill-server"], { env, stdio: "ignore" })
    } catch {
      // No server left.
    }
    rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 })
  }
}

/** A benchmark's world; `configLines` go into the tmux configuration after the common ones. */
export const benchWorld = (configLines: ReadonlyArray<string> = []) => {
  const root = resolve(import.meta.dirname, "..")
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "libtmux-mcp-bench-")))
  writeFileSync(join(dir, ".bashrc"), "PS1='$ '\n")
  const config = join(dir, "bench.conf")
  writeFileSync(config, ["set -s exit-empty on", "set -g default-shell /bin/bash", ...configLines, ""].join("\n"))
  const env = { PATH: process.env.PATH ?? "", HOME: dir, TMUX_TMPDIR: dir, LIBTMUX_TMUX_CONFIG: config }
  const socket = join(dir, `tmux-${process.getuid?.() ?? 0}`, "libtmux-mcp")
  return {
    env,
    socket,
    /** A tmux command on the world's socket; its stdout. */
    tmux: (...args: ReadonlyArray<string>) =>
      new Promise<string>((done, fail) =>
        execFile("tmux", ["-S", socket, ...args], { env }, (error, out) => error ? fail(error) : done(out))
      ),
    /**
     * The built server (or LIBTMUX_BENCH_BIN) connected through the SDK's client, and `call`: a tool
     * call's structured result, a failure thrown.
     */
    start: async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [process.env.LIBTMUX_BENCH_BIN ?? join(root, "dist/libtmux-mcp.js")],
        env,
        stderr: "ignore"
      })
      const client = new Client({ name: "bench", version: "0" })
      await client.connect(transport)
      const call = async (name: string, args: Record<string, unknown>) => {
        const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })
        if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`)
        return result.structuredContent as Record<string, any>
      }
      return { client, transport, call }
    },
    /** Removes the tmux server and the folder. */
    dispose: () => {
      try {
        execFileSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" })
      } catch {
        // Already gone.
      }
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 })
    }
  }
}
