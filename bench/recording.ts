/**
 * Recording benchmarks (not tests), issue 63.
 * - Processor time of run_shell_command with recording on against off: two servers, each on a tmux
 *   server of its own, called in alternating rounds; the time counted is the server's, its tmux
 *   server's and the recording's pipe (`cat`, a child of the tmux server). Target: on <= 1.05x off.
 * - A pane that writes 200 MB while the client pings, recording off and on: ping round trips (target
 *   p99 < 50 ms) and the server's resident size, which must not grow with the output.
 * `node bench/recording.ts cpu` runs only the first, `flood` only the second. Measured on a shared 2-core
 * VM: `true` 1.019x, `seq 1 200` 1.044x (other runs 1.006x / 1.064x: a spread of about ±3%); 200 MB with
 * pings: p99 22.3 ms recorded against 29.8 ms off, resident 73 -> 97 MB at most (off: 76 -> 87 MB).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { benchWorld, quantile, sleep, ticks } from "./world.ts"

type World = ReturnType<typeof benchWorld>

/** The pids of the children of `pid` (the tmux server's pipe commands among them). */
const childrenOf = (pid: number): Array<number> => {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim().split(" ").filter((id) => id !== "")
        .map(Number)
    )
  } catch {
    return []
  }
}

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/u.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024

/** A world with the server started in it, recording into a folder of its own when `record`. */
const serve = async (record: boolean) => {
  const world = benchWorld()
  const folder = join(world.env.HOME, "recordings")
  if (record) {
    mkdirSync(folder, { mode: 0o700 })
    ;(world.env as Record<string, string>).LIBTMUX_RECORD = folder
  }
  ;(world.env as Record<string, string>).LIBTMUX_TOOLSETS = "inspect,execute"
  const server = await world.start()
  const pane = (await server.call("create_session", { session_name: "bench", width: 120, height: 40 }))
    .pane_id as string
  await server.call("run_shell_command", { pane_id: pane, command: "true" })
  const tmuxPid = Number((await world.tmux("display-message", "-p", "#{pid}")).trim())
  /** Every process time the calls cost: the server, its reaped tmux clients, the tmux server, its children. */
  const spent = () => {
    const [own, clients] = ticks(server.transport.pid!)
    const [tmuxOwn, tmuxChildren] = ticks(tmuxPid)
    const pipes = childrenOf(tmuxPid).reduce((sum, pid) => {
      try {
        return sum + ticks(pid)[0]
      } catch {
        return sum
      }
    }, 0)
    return own + clients + tmuxOwn + tmuxChildren + pipes
  }
  return { world, folder, server, pane, spent }
}

type Served = Awaited<ReturnType<typeof serve>>

/** Alternating rounds of `calls` runs on each side; the median of the rounds' ratios, and of their sums. */
const rounds = async (off: Served, on: Served, command: string, calls: number, count = 12) => {
  const spent = { off: 0, on: 0 }
  const ratios: Array<number> = []
  for (let round = 0; round < count; round++) {
    const order: ReadonlyArray<readonly ["off" | "on", Served]> = round % 2 === 0
      ? [["off", off], ["on", on]]
      : [["on", on], ["off", off]]
    const used = { off: 0, on: 0 }
    for (const [name, side] of order) {
      const before = side.spent()
      for (let i = 0; i < calls; i++) await side.server.call("run_shell_command", { pane_id: side.pane, command })
      used[name] = side.spent() - before
    }
    spent.off += used.off
    spent.on += used.on
    ratios.push(used.on / used.off)
  }
  const each = (ticks: number) => (ticks * 10) / (count * calls)
  console.log(
    `run_shell_command ${JSON.stringify(command)}: processor time with recording ${
      quantile(ratios, 0.5).toFixed(3)
    }x without (median of ${count} rounds; all rounds ${(spent.on / spent.off).toFixed(3)}x; target <= 1.05x); ` +
      `${each(spent.off).toFixed(2)} ms a call off, ${each(spent.on).toFixed(2)} ms on`
  )
}

/** 200 MB into a pane while pings go: their round trips, and the server's resident size. */
const flood = async (on: Served, label: string) => {
  const pid = on.server.transport.pid!
  const startRss = rssMb(pid)
  const done = on.server.call("run_shell_command", {
    pane_id: on.pane,
    command: "head -c 200000000 /dev/zero | tr '\\0' 'x' | fold -w 119",
    timeout: 600
  })
  let finished = false
  void done.finally(() => (finished = true))
  const pings: Array<number> = []
  let peakRss = startRss
  while (!finished) {
    const started = performance.now()
    await on.server.client.ping()
    pings.push(performance.now() - started)
    peakRss = Math.max(peakRss, rssMb(pid))
    await sleep(20)
  }
  await done
  const files = existsSync(on.folder)
    ? readdirSync(on.folder, { withFileTypes: true }).filter((entry) => entry.isFile())
    : []
  const bytes = files.reduce((sum, entry) => sum + statSync(join(on.folder, entry.name)).size, 0)
  console.log(
    `200 MB written in a pane, ${label}: ${pings.length} pings, p50 ${quantile(pings, 0.5).toFixed(1)} ms, p99 ${
      quantile(pings, 0.99).toFixed(1)
    } ms, max ${Math.max(...pings).toFixed(1)} ms (target p99 < 50 ms); server resident ${startRss.toFixed(0)} MB ` +
      `before, ${peakRss.toFixed(0)} MB at most; ${(bytes / 1e6).toFixed(0)} MB of recordings kept ` +
      `(${files.length} files)`
  )
}

const main = async () => {
  const worlds: Array<World> = []
  try {
    const off = await serve(false)
    worlds.push(off.world)
    const on = await serve(true)
    worlds.push(on.world)
    if (process.argv[2] !== "flood") await rounds(off, on, "true", 40)
    if (process.argv[2] !== "flood") await rounds(off, on, "seq 1 200", 40)
    if (process.argv[2] !== "cpu") {
      await flood(off, "recording off")
      await flood(on, "recorded")
    }
    await off.server.client.close()
    await on.server.client.close()
  } finally {
    for (const world of worlds) world.dispose()
  }
}

await main()
