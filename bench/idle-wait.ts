/**
 * Idle-wait benchmark (not a test): what a wait_for_text costs while nothing happens, and how soon
 * it answers once text appears after the quiet.
 * - processor time over 10 s of one wait on an idle pane, as a share of one core: the server with
 *   every tmux client it ran (its own and its reaped children's user and system time, from
 *   /proc/<pid>/stat), plus the tmux server's own; floor: the same count over 10 s with no call;
 * - for comparison, a run_shell_command of `sleep 10` (a channel wait, and its watcher's looks);
 * - from the Enter of a printf after those 10 s to the answer; floor: the same, seen by bare
 *   capture-pane clients run one after another.
 * Each wait starts after 12 s of quiet (LIBTMUX_BENCH_IDLE_SETTLE_MS), the floor's measure too.
 * Usage: node bench/idle-wait.ts (LIBTMUX_BENCH_IDLE_RUNS=n for fewer rounds while developing).
 */
import { benchWorld, coreShare, quantile, sleep } from "./world.ts"

const rounds = Number(process.env.LIBTMUX_BENCH_IDLE_RUNS ?? 10)
const idleMs = Number(process.env.LIBTMUX_BENCH_IDLE_MS ?? 10_000)
/** The quiet before each measured wait: the server's own work after the last round's calls is over. */
const settleMs = Number(process.env.LIBTMUX_BENCH_IDLE_SETTLE_MS ?? 12_000)
const world = benchWorld(["set -g history-limit 5000"])

const { tmux } = world
/** Types a command line into the pane and returns the time just before its Enter. */
const typeLine = async (pane: string, line: string) => {
  await tmux("send-keys", "-t", pane, "-l", "--", line)
  const entered = performance.now()
  await tmux("send-keys", "-t", pane, "Enter")
  return entered
}

const main = async () => {
  const { client, transport, call } = await world.start()
  const pane = (await call("create_session", { session_name: "idle", width: 120, height: 40 })).pane_id as string
  await call("run_shell_command", { pane_id: pane, command: "true" })
  const serverPid = transport.pid!
  const tmuxPid = Number((await tmux("display-message", "-p", "#{pid}")).trim())

  // Past the server's collection after its last call, and past V8's own work after activity (its
  // compiler and collector threads count in the process's time: 0.7-0.9% of a core over the 10 s right
  // after a call or 5 s after it, none 12 s after it).
  await sleep(settleMs)
  const floor = await coreShare(serverPid, tmuxPid, () => sleep(idleMs))
  const shares: Array<{ readonly parts: readonly [number, number, number]; readonly total: number }> = []
  const latencies: Array<number> = []
  const floors: Array<number> = []
  for (let i = 0; i < rounds; i++) {
    const waiting = call("wait_for_text", { pane_id: pane, patterns: [`idle-${i}-x`], timeout: 60 })
    await sleep(200)
    shares.push(await coreShare(serverPid, tmuxPid, () => sleep(idleMs)))
    const entered = await typeLine(pane, `printf 'idle-${i}-%s\\n' x`)
    await waiting
    latencies.push(performance.now() - entered)
    // The floor: the same command line, watched by bare capture-pane clients one after another.
    await sleep(200)
    const floorEntered = await typeLine(pane, `printf 'floor-${i}-%s\\n' x`)
    while (!(await tmux("capture-pane", "-p", "-t", pane)).includes(`floor-${i}-x`)) {
      // Look again at once.
    }
    floors.push(performance.now() - floorEntered)
    await sleep(settleMs)
  }
  // For comparison: a run waiting on its channel (with its watcher's looks) over the same 10 s.
  const running = await coreShare(
    serverPid,
    tmuxPid,
    () => call("run_shell_command", { pane_id: pane, command: `sleep ${idleMs / 1000}`, timeout: 60 })
  )
  const pct = (share: number) => `${(share * 100).toFixed(2)}%`
  const median = (pick: (share: (typeof shares)[number]) => number) => pct(quantile(shares.map(pick), 0.5))
  console.log(
    `wait_for_text on an idle pane, ${idleMs / 1000} s (${rounds} rounds): median ${median((s) => s.total)}, ` +
      `max ${pct(Math.max(...shares.map((s) => s.total)))} of one core (server, its tmux clients and the tmux ` +
      `server; target <= 1%); floor (no call) ${pct(floor.total)} ` +
      `(${floor.parts.map(pct).join(", ")})`
  )
  console.log(
    `  for comparison, run_shell_command \`sleep ${idleMs / 1000}\` over its run: ${pct(running.total)}; ` +
      `medians of the wait: the server itself ${median((s) => s.parts[0])}, its tmux clients ${
        median((s) => s.parts[1])
      }, the tmux server ${median((s) => s.parts[2])}`
  )
  console.log(
    `wait_for_text answer after ${idleMs / 1000} s idle, from the Enter of the printf: median ${
      quantile(latencies, 0.5).toFixed(1)
    } ms, p90 ${quantile(latencies, 0.9).toFixed(1)} ms (target <= 100 ms, <= 250 ms); floor (bare capture-pane ` +
      `clients one after another) median ${quantile(floors, 0.5).toFixed(1)} ms, p90 ${
        quantile(floors, 0.9).toFixed(1)
      } ms`
  )
  if (process.env.LIBTMUX_BENCH_DEBUG) console.log(latencies, floors)
  await client.close()
}

try {
  await main()
} finally {
  world.dispose()
}
