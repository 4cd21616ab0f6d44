/**
 * The tmux server's memory over many runs (not a test): its resident size (VmRSS, from
 * /proc/<pid>/status) before and after LIBTMUX_BENCH_RUNS (default 2,000) run_shell_command calls of
 * `true` in one pane, in KB per run. Every 50 runs the pane's history is cleared (untimed, outside
 * the calls), so what grows is what the runs leave in the server, not the scrollback their echoes
 * fill (which history-limit bounds). The pane's and the server's options are counted after the runs:
 * a run that left options behind shows there. LIBTMUX_BENCH_BIN=<another build's dist/libtmux-mcp.js>
 * measures that build instead (before/after). `node bench/tmux-memory.ts`, after `npm run build`.
 *
 * Measured with tmux 3.3a on a shared 2-core VM (load 15-30), both builds at once, 2,000 runs each,
 * growth linear throughout (samples every 500 runs): be1185b 4,540 -> 11,600 KB, 3.53 KB per run;
 * this build (no `@x` status option: one set and one unset fewer per run) 4,448 -> 9,432 KB, 2.49 KB
 * per run; no run left an option behind in either. A bare tmux server, 1,000 client invocations each
 * setting and unsetting three pane options of ~700 bytes: 0.68 KB each with new names every time
 * (as the per-run-ID names are), 0.25 KB with the same three names, nothing for 1,000 invocations
 * that set nothing (`display -p`). So what grows is tmux's, per option write and more per new name,
 * not clients or channels. A default run typed from a held view now makes 19 option commands (was
 * 22): 9 in the typing list, 2 in the trailer, 8 unsets in the collect; 5 of its sets create names
 * that carry its ID or generation (`@l<id>`, `@lmcp_run_<id>`, `@lmcp_typed_<id>`, `@lmcp_end_<id>`,
 * `@lmcp_g<n>`). Fixed per-pane names (one run holds a pane at a time) would cut the rest, but resume,
 * earlier_run and the startup sweep find a run by the ID in those names: a change of the run state.
 */
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { benchWorld } from "./world.ts"

const runs = Number(process.env.LIBTMUX_BENCH_RUNS ?? 2_000)
const warmup = 100
const world = benchWorld()
const tmux = (...args: ReadonlyArray<string>) =>
  execFileSync("tmux", ["-S", world.socket, ...args], { env: world.env, encoding: "utf8" })
const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/u.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1])

const main = async () => {
  const { client } = await world.start()
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })
    if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`)
    return result.structuredContent as Record<string, unknown>
  }
  try {
    const pane = (await call("create_session", { session_name: "memory", width: 120, height: 40 })).pane_id as string
    const pid = Number(tmux("display-message", "-p", "#{pid}").trim())
    const runOnce = async (i: number) => {
      await call("run_shell_command", { pane_id: pane, command: "true" })
      if (i % 50 === 49) tmux("clear-history", "-t", pane)
    }
    for (let i = 0; i < warmup; i++) await runOnce(i)
    const before = rssKb(pid)
    const started = performance.now()
    const samples: Array<string> = []
    for (let i = 0; i < runs; i++) {
      await runOnce(i)
      if ((i + 1) % 500 === 0) samples.push(`${i + 1}: ${rssKb(pid)} KB`)
    }
    const after = rssKb(pid)
    const options = {
      pane: tmux("show-options", "-p", "-t", pane).split("\n").filter((line) => line !== "").length,
      server: tmux("show-options", "-s").split("\n").filter((line) => line.startsWith("@")).length
    }
    console.log(
      `tmux server RSS over ${runs} runs of \`true\` (after ${warmup} warm-up runs): ${before} KB -> ${after} KB, ` +
        `${((after - before) / runs).toFixed(2)} KB per run; ${
          ((performance.now() - started) / runs).toFixed(1)
        } ms per run; samples ${samples.join(", ")}; ` +
        `options left: ${options.pane} on the pane, ${options.server} user options on the server`
    )
  } finally {
    await client.close()
    world.dispose()
  }
}

await main()
