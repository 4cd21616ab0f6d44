/**
 * `libtmux-mcp wait` benchmark (not a test):
 * - processor time of waiting on a run of `sleep 60`, as a share of one core: the wait command's
 *   process tree (its own and its reaped tmux clients' user and system time, counted as this
 *   process's reaped children, from /proc/self/stat) plus the tmux server's, less the tmux
 *   server's over the same minute of another `sleep 60` with no watcher (target <= 1%);
 * - from a run's end (the time its command prints just before its trailer) to the wait's exit,
 *   median and p90 over 20 runs (target <= 100 ms median).
 * Usage: node bench/wait-command.ts (LIBTMUX_BENCH_WAIT_SECONDS and LIBTMUX_BENCH_WAIT_RUNS for less while developing).
 */
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { benchWorld, quantile, sleep, ticks } from "./world.ts"

const seconds = Number(process.env.LIBTMUX_BENCH_WAIT_SECONDS ?? 60)
const rounds = Number(process.env.LIBTMUX_BENCH_WAIT_RUNS ?? 20)
const bin = process.env.LIBTMUX_BENCH_BIN ?? join(resolve(import.meta.dirname, ".."), "dist/libtmux-mcp.js")
const world = benchWorld()

const { tmux } = world

/** Runs `wait` as a child of this process; resolves at its exit with the time it exited. */
const waitFor = (runId: string, pane: string) =>
  new Promise<
    { readonly code: number | null; readonly stdout: string; readonly exited: number; readonly printed: number }
  >((done) => {
    const child = spawn(process.execPath, [bin, "wait", runId, "--pane", pane, "--socket", `path:${world.socket}`], {
      env: world.env,
      stdio: ["ignore", "pipe", "inherit"]
    })
    let stdout = ""
    let printed = 0
    child.stdout.on("data", (chunk: Buffer) => {
      printed ||= Date.now()
      stdout += chunk.toString("utf8")
    })
    child.on("close", (code) => done({ code, stdout, exited: Date.now(), printed }))
  })

const main = async () => {
  const { client, call } = await world.start()
  const pane = (await call("create_session", { session_name: "wait", width: 120, height: 40 })).pane_id as string
  await call("run_shell_command", { pane_id: pane, command: "true" })
  const tmuxPid = Number((await tmux("display-message", "-p", "#{pid}")).trim())
  const timedOut = async (command: string, timeout: number) => {
    const result = await call("run_shell_command", { pane_id: pane, command, timeout })
    if (result.timed_out !== true) throw new Error(`expected a timed-out run: ${JSON.stringify(result)}`)
    return result.run_id as string
  }
  // Resumes until the run is collected (each resume waits at most the ceiling, 30 s by default).
  const collect = async (runId: string) => {
    while ((await call("run_shell_command", { pane_id: pane, resume: runId, timeout: 30 })).timed_out === true) {
      // Not yet.
    }
  }

  // A host runs the same installation again and again: the wait's first start fills the compile cache.
  await waitFor("abcdef", pane)
  // The floor: the tmux server over a run of `sleep` with nobody waiting.
  const floorRun = await timedOut(`sleep ${seconds}`, 1)
  const [floorBefore] = ticks(tmuxPid)
  const floorStarted = performance.now()
  // Nothing asks tmux meanwhile: the run's own minute (collected after).
  await sleep(seconds * 1000 - 1500)
  const floorWall = performance.now() - floorStarted
  const floorShare = ((ticks(tmuxPid)[0] - floorBefore) * 10) / floorWall
  await collect(floorRun)

  const run = await timedOut(`sleep ${seconds}`, 1)
  const [tmuxBefore] = ticks(tmuxPid)
  const [, reapedBefore] = ticks("self")
  const started = performance.now()
  const waited = await waitFor(run, pane)
  const wall = performance.now() - started
  const watcher = ((ticks("self")[1] - reapedBefore) * 10) / wall
  const tmuxShare = ((ticks(tmuxPid)[0] - tmuxBefore) * 10) / wall
  await collect(run)
  const pct = (share: number) => `${(share * 100).toFixed(2)}%`
  console.log(
    `wait on \`sleep ${seconds}\` (${(wall / 1000).toFixed(1)} s, exit ${waited.code}): ${
      pct(watcher + tmuxShare - floorShare)
    } of one core (target <= 1%): the wait's process tree ${pct(watcher)}, the tmux server ${pct(tmuxShare)}, ` +
      `less the tmux server's ${pct(floorShare)} with no watcher`
  )

  const latencies: Array<number> = []
  const printedAfter: Array<number> = []
  const mark = join(world.env.HOME, "ended")
  for (let i = 0; i < rounds; i++) {
    const runId = await timedOut(`sleep 1.5; date +%s%N > ${mark}`, 0.3)
    const done = await waitFor(runId, pane)
    if (done.code !== 0) throw new Error(`wait exited ${done.code}: ${done.stdout}`)
    const ended = Number(BigInt(readFileSync(mark, "utf8").trim()) / 1_000_000n)
    latencies.push(done.exited - ended)
    printedAfter.push(done.printed - ended)
    await collect(runId)
    await sleep(100)
  }
  console.log(
    `wait's exit after the run's end (${rounds} runs): median ${quantile(latencies, 0.5).toFixed(1)} ms, p90 ${
      quantile(latencies, 0.9).toFixed(1)
    } ms (target <= 100 ms median)`
  )
  if (process.env.LIBTMUX_BENCH_DEBUG) console.log(latencies, printedAfter)
  await client.close()
}

try {
  await main()
} finally {
  world.dispose()
}
