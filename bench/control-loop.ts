/**
 * Control-loop benchmarks (not tests). Each ratio is against a floor measured in the same run:
 * bare tmux processes doing the same job, spawned from this same client process, interleaved.
 * - run_shell_command of `true` and of `sleep 0.1` vs the floor: a bare `tmux wait-for CH` started,
 *   then one `send-keys 'COMMAND; tmux wait-for -S CH' Enter`, until the wait ends; before each timed
 *   run, ours and the floor's, the pane is reset untimed (send-keys -R, clear-history, C-l, the
 *   prompt seen again). LIBTMUX_BENCH_BASE=<another build's dist/libtmux-mcp.js> times that build
 *   too, interleaved, against the same floor (before/after in one run); `node bench/control-loop.ts
 *   runs` stops after these. Measured on a shared 2-core VM (load 7-10), three paired runs, medians:
 *   `true` 1.06x / 1.10x / 1.14x the floor (ours, typing from the view held of a ready pane) against
 *   1.71x / 1.64x / 1.61x (e1d10c7, a readiness look first); `sleep 0.1` 0.95x / 1.05x / 1.03x against
 *   1.14x / 1.18x / 1.10x;
 * - wait_for_text: from the text appearing to the answer;
 * - run_shell_command: resuming a run that already finished, and from cancelling a run to its
 *   wait-for child being gone (test/e2e/run-shell-command asserts both outcomes under generous bounds);
 * - the answer to a call whose target does not exist (test/e2e/missing-targets);
 * - capture_pane of a 10,000-line history vs bare capture-pane;
 * - search_panes over 50 panes of 2,000 lines vs bare captures of the same panes;
 * - a fresh server's resident size after 1,000 mixed calls vs after its first call.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { execFile, execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { pollIntervalMs } from "../src/programs/waitText.ts"

const root = resolve(import.meta.dirname, "..")
const dir = realpathSync(mkdtempSync(join(tmpdir(), "libtmux-mcp-bench-")))
writeFileSync(join(dir, ".bashrc"), "PS1='$ '\n")
const config = join(dir, "bench.conf")
writeFileSync(config, "set -s exit-empty on\nset -g history-limit 50000\nset -g default-shell /bin/bash\n")
const env = {
  PATH: process.env.PATH ?? "",
  HOME: dir,
  // Shells that exit as the server goes would write their history into the folder just removed.
  HISTFILE: "/dev/null",
  TMUX_TMPDIR: dir,
  LIBTMUX_TMUX_CONFIG: config,
  LIBTMUX_TOOLSETS: "inspect,manage,execute,teardown"
}
const socket = join(dir, `tmux-${process.getuid?.() ?? 0}`, "libtmux-mcp")

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}
const tmux = (...args: ReadonlyArray<string>) =>
  new Promise<string>((done, fail) =>
    execFile(
      "tmux",
      ["-S", socket, ...args],
      { env, maxBuffer: 256 * 1024 * 1024 },
      (error, stdout) => error ? fail(error) : done(stdout)
    )
  )
const timed = async (work: () => Promise<unknown>) => {
  const started = performance.now()
  await work()
  return performance.now() - started
}
const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/u.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024
const ratios = (label: string, floor: ReadonlyArray<number>, ours: ReadonlyArray<number>, target: string) =>
  console.log(
    `${label}: median ${(quantile(ours, 0.5) / quantile(floor, 0.5)).toFixed(2)}x, p90 ${
      (quantile(ours, 0.9) / quantile(floor, 0.9)).toFixed(2)
    }x the floor (${target}); ` +
      `floor median ${quantile(floor, 0.5).toFixed(1)} ms, ours ${quantile(ours, 0.5).toFixed(1)} ms`
  )

/** A server from the bundle `entry` under the SDK's client, and a call that throws on a tool error. */
const connect = async (entry: string) => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [entry], env, stderr: "ignore" })
  const client = new Client({ name: "bench", version: "0" })
  await client.connect(transport)
  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })
    if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`)
    return result.structuredContent as Record<string, any>
  }
  return { client, call }
}

/** Untimed: the pane's terminal reset, its history cleared and its screen, until the prompt shows again. */
const resetPane = async (pane: string) => {
  await tmux("send-keys", "-R", "-t", pane)
  await tmux("clear-history", "-t", pane)
  await tmux("send-keys", "-t", pane, "C-l")
  while (!/^0 [1-9]/u.test(await tmux("display-message", "-p", "-t", pane, "#{cursor_y} #{cursor_x}"))) {
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}

const main = async () => {
  const { client, call } = await connect(join(root, "dist/libtmux-mcp.js"))
  const ours = (await call("create_session", { session_name: "ours", width: 120, height: 40 })).pane_id as string
  const floorPane = (await call("create_session", { session_name: "floor", width: 120, height: 40 })).pane_id as string
  await call("run_shell_command", { pane_id: ours, command: "true" })
  await call("run_shell_command", { pane_id: floorPane, command: "true" })

  // The floor of a run: a bare wait-for started, then one send-keys of the command and its signal,
  // until the wait ends. Before every timed run (ours and the floor's), untimed, the pane is reset.
  const base = process.env.LIBTMUX_BENCH_BASE === undefined ? undefined : await connect(process.env.LIBTMUX_BENCH_BASE)
  const basePane = base === undefined
    ? undefined
    : (await base.call("create_session", { session_name: "base", width: 120, height: 40 })).pane_id as string
  if (base !== undefined) await base.call("run_shell_command", { pane_id: basePane, command: "true" })
  let channel = 0
  const floorRun = (command: string) => async () => {
    const name = `bench_${channel++}`
    const waiting = tmux("wait-for", name)
    await tmux("send-keys", "-t", floorPane, `${command}; tmux wait-for -S ${name}`, "Enter")
    await waiting
  }
  for (
    const [command, runs, target] of [["true", 60, "target <= 0.8x"], ["sleep 0.1", 30, "target <= 1.05x"]] as const
  ) {
    const floor: Array<number> = []
    const mine: Array<number> = []
    const before: Array<number> = []
    for (let i = 0; i < runs; i++) {
      await resetPane(floorPane)
      floor.push(await timed(floorRun(command)))
      await resetPane(ours)
      mine.push(await timed(() => call("run_shell_command", { pane_id: ours, command })))
      if (base !== undefined) {
        await resetPane(basePane!)
        before.push(await timed(() => base.call("run_shell_command", { pane_id: basePane, command })))
      }
    }
    ratios(`run_shell_command \`${command}\` (${runs} interleaved runs)`, floor, mine, target)
    if (base !== undefined) {
      ratios(`  the same by LIBTMUX_BENCH_BASE (paired)`, floor, before, target)
    }
  }
  await base?.client.close()
  if (process.argv[2] === "runs") return await client.close()

  // wait_for_text: the text appears (a bare send-keys of printf), then the answer arrives.
  const latencies: Array<number> = []
  for (let i = 0; i < 20; i++) {
    const waiting = call("wait_for_text", { pane_id: ours, patterns: [`ready-${i}-x`], timeout: 10 })
    await new Promise((resolve) => setTimeout(resolve, 150))
    const appeared = performance.now()
    await tmux("send-keys", "-t", ours, "-l", "--", `printf 'ready-${i}-%s\\n' x`)
    await tmux("send-keys", "-t", ours, "Enter")
    await waiting
    latencies.push(performance.now() - appeared)
  }
  console.log(
    `wait_for_text from the text appearing to the answer: median ${
      quantile(latencies, 0.5).toFixed(1)
    } ms (target < 30 ms; poll interval ${pollIntervalMs} ms)`
  )

  // Resuming a run that already finished: the answer, not a wait.
  const resumes: Array<number> = []
  for (let i = 0; i < 10; i++) {
    const held = await call("run_shell_command", { pane_id: ours, command: "sleep 0.3; echo done", timeout: 0.1 })
    await new Promise((resolve) => setTimeout(resolve, 600))
    resumes.push(await timed(() => call("run_shell_command", { pane_id: ours, resume: held.run_id, timeout: 30 })))
  }
  console.log(
    `run_shell_command resume of a finished run: median ${quantile(resumes, 0.5).toFixed(1)} ms, p90 ${
      quantile(resumes, 0.9).toFixed(1)
    } ms (10 runs)`
  )

  // Cancelling a run: from the abort to its wait-for child being gone.
  const waitForGone: Array<number> = []
  const waiters = () =>
    execFileSync("ps", ["-eo", "args"], { encoding: "utf8" }).split("\n").filter((line) =>
      line.includes("wait-for lmcp_") && line.includes(dir)
    )
  for (let i = 0; i < 5; i++) {
    const controller = new AbortController()
    const pending = client.callTool(
      { name: "run_shell_command", arguments: { pane_id: ours, command: "sleep 2; echo slept" } },
      undefined,
      { signal: controller.signal }
    )
      .catch(() => undefined)
    await new Promise((resolve) => setTimeout(resolve, 300))
    const cancelled = performance.now()
    controller.abort()
    await pending
    while (waiters().length > 0) await new Promise((resolve) => setTimeout(resolve, 5))
    waitForGone.push(performance.now() - cancelled)
    const refused = await client.callTool({ name: "run_shell_command", arguments: { pane_id: ours, command: "true" } })
    const runId = /run ([0-9a-f]{6})/u.exec(JSON.stringify(refused.content))?.[1]
    if (runId !== undefined) await call("run_shell_command", { pane_id: ours, resume: runId, timeout: 10 })
  }
  console.log(
    `run_shell_command cancelled: its wait-for child gone after median ${
      quantile(waitForGone, 0.5).toFixed(1)
    } ms, max ${Math.max(...waitForGone).toFixed(1)} ms (5 runs)`
  )

  // A target that does not exist: answered, not waited out.
  const missing: Array<number> = []
  for (let i = 0; i < 10; i++) {
    missing.push(
      await timed(() =>
        client.callTool({ name: "wait_for_text", arguments: { pane_id: "%9999", patterns: ["x"], timeout: 30 } })
      )
    )
  }
  console.log(
    `wait_for_text on a pane that does not exist (timeout 30 s): answered after median ${
      quantile(missing, 0.5).toFixed(1)
    } ms (10 runs)`
  )

  // capture_pane of a 10,000-line history.
  await call("run_shell_command", { pane_id: ours, command: "seq 1 10000", max_lines: 1 })
  const captureFloor: Array<number> = []
  const captureOurs: Array<number> = []
  for (let i = 0; i < 30; i++) {
    captureFloor.push(await timed(() => tmux("capture-pane", "-p", "-t", ours, "-S", "-10000")))
    captureOurs.push(
      await timed(() => call("capture_pane", { pane_id: ours, start: -10000, max_lines: 100000, max_bytes: 4194304 }))
    )
  }
  ratios("capture_pane of 10,000 history lines (30 runs)", captureFloor, captureOurs, "target <= 1.3x")

  // search_panes over 50 panes of 2,000 lines each.
  const panes: Array<string> = []
  for (let i = 0; i < 50; i++) {
    const pane = (await call("create_window", { session_name: "ours" })).pane_id as string
    panes.push(pane)
  }
  for (const pane of panes) {
    await call("run_shell_command", { pane_id: pane, command: "seq 1 2000 | sed 's/^/row /'", max_lines: 1 })
  }
  const searchFloor: Array<number> = []
  const searchOurs: Array<number> = []
  for (let i = 0; i < 10; i++) {
    searchFloor.push(
      await timed(() => Promise.all(panes.map((pane) => tmux("capture-pane", "-p", "-J", "-t", pane, "-S", "-2000"))))
    )
    searchOurs.push(
      await timed(() => call("search_panes", { pattern: "row 1999", history_lines: 2000, max_panes: 500 }))
    )
  }
  ratios("search_panes over 50 panes x 2,000 lines (10 runs)", searchFloor, searchOurs, "target <= 2x")

  await client.close()

  // Memory: a fresh server, its size after the first call, then after 1,000 mixed calls.
  const memoryTransport = new StdioClientTransport({
    command: process.execPath,
    args: [join(root, "dist/libtmux-mcp.js")],
    env,
    stderr: "ignore"
  })
  const memoryClient = new Client({ name: "bench-memory", version: "0" })
  await memoryClient.connect(memoryTransport)
  const memoryCall = async (name: string, args: Record<string, unknown>) => {
    const result = await memoryClient.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })
    if (result.isError === true) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`)
    return result.structuredContent as Record<string, any>
  }
  await memoryCall("list_panes", {})
  const rssAfterFirst = rss(memoryTransport.pid!)
  for (let i = 0; i < 1000; i++) {
    const kind = i % 5
    if (kind === 0) await memoryCall("list_panes", {})
    else if (kind === 1) await memoryCall("capture_pane", { pane_id: ours, max_lines: 50 })
    else if (kind === 2) await memoryCall("snapshot_pane", { pane_id: ours })
    else if (kind === 3) await memoryCall("run_shell_command", { pane_id: ours, command: `echo ${i}` })
    else await memoryCall("search_panes", { pattern: "row 5", max_panes: 5 })
  }
  const rssRightAfter = rss(memoryTransport.pid!)
  // The server collects garbage once idle for a second: read again after that.
  await new Promise((resolve) => setTimeout(resolve, 1500))
  const rssIdle = rss(memoryTransport.pid!)
  console.log(
    `memory: resident ${rssAfterFirst.toFixed(1)} MB after the first call; after 1,000 mixed calls ${
      rssRightAfter.toFixed(1)
    } MB at once ` +
      `(+${(rssRightAfter - rssAfterFirst).toFixed(1)} MB) and ${rssIdle.toFixed(1)} MB after 1.5 s idle (+${
        (rssIdle - rssAfterFirst).toFixed(1)
      } MB; target within 20 MB)`
  )
  await memoryClient.close()
}

try {
  await main()
} finally {
  try {
    execFileSync("tmux", ["-S", socket, "kill-server"], { stdio: "ignore" })
  } catch {
    // Gone already.
  }
  rmSync(dir, { recursive: true, force: true })
}
