/**
 * What many `libtmux-mcp wait` watchers cost while they wait (a benchmark, not a test): N watchers
 * (LIBTMUX_BENCH_WATCHERS, default 50), each on a run of its own that sleeps, each started the way a
 * host's background runner starts a watch_command (`sh -c`). Once every watcher's tmux client waits,
 * it counts the processes of each watcher's tree by program and sums their memory three ways: VmRSS
 * (what `ps` shows; it counts Node's and tmux's shared file pages once per process), RssAnon (each
 * process's own pages) and Pss (shared pages divided among their sharers: the memory the watchers take
 * together). Then it ends the runs and checks each watcher exits 0.
 * Usage: node bench/wait-watchers.ts (LIBTMUX_BENCH_BIN names another build to compare).
 */
import { spawn } from "node:child_process"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { benchWorld } from "./world.ts"

const count = Number(process.env.LIBTMUX_BENCH_WATCHERS ?? 50)
const bin = process.env.LIBTMUX_BENCH_BIN ?? join(resolve(import.meta.dirname, ".."), "dist/libtmux-mcp.js")
const world = benchWorld()
/** The watchers' processes, ended before the world is removed whatever happened. */
const started: Array<number> = []

/** The children of every process, from /proc. */
const childrenOf = (): Map<number, Array<number>> => {
  const children = new Map<number, Array<number>>()
  for (const name of readdirSync("/proc").filter((entry) => /^\d+$/u.test(entry))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8")
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      children.set(parent, [...children.get(parent) ?? [], Number(name)])
    } catch {
      // Gone while we looked.
    }
  }
  return children
}

const tree = (pid: number, children: Map<number, Array<number>>): Array<number> => [
  pid,
  ...(children.get(pid) ?? []).flatMap((child) => tree(child, children))
]

/** A field of /proc/PID/status or smaps_rollup, in kB. */
const kb = (pid: number, file: string, field: string): number =>
  Number(new RegExp(`^${field}:\\s+(\\d+)`, "mu").exec(readFileSync(`/proc/${pid}/${file}`, "utf8"))?.[1] ?? 0)

const program = (pid: number): string => {
  const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
  return argv[0]!.endsWith("node") ? "node" : argv[0]!.split("/").at(-1)!
}

const main = async () => {
  const { client, call } = await world.start()
  const first = (await call("create_session", { session_name: "w0", width: 80, height: 24 })).pane_id as string
  const panes = [first]
  for (let i = 1; i < count; i++) {
    panes.push((await call("create_session", { session_name: `w${i}`, width: 80, height: 24 })).pane_id as string)
  }
  const go = join(world.env.HOME, "go")
  const runs: Array<string> = []
  for (const pane of panes) {
    const result = await call("run_shell_command", {
      pane_id: pane,
      command: `until [ -e ${go} ]; do sleep 0.2; done`,
      timeout: 2
    })
    if (result.timed_out !== true) throw new Error(`expected a timed-out run: ${JSON.stringify(result)}`)
    runs.push(result.run_id as string)
  }
  const watchers = runs.map((runId, i) => {
    const line = [process.execPath, bin, "wait", runId, "--pane", panes[i]!, "--socket", `path:${world.socket}`]
      .map((word) => `'${word}'`).join(" ")
    const child = spawn("sh", ["-c", line], { env: world.env, stdio: ["ignore", "pipe", "inherit"] })
    let stdout = ""
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    started.push(child.pid!)
    const watcher = {
      pid: child.pid!,
      ended: undefined as { code: number | null; stdout: string } | undefined,
      exited: new Promise<{ code: number | null; stdout: string }>((done) =>
        child.on("close", (code) => done(watcher.ended = { code, stdout }))
      )
    }
    return watcher
  })
  // Every watcher waits once its tmux client waits on its run's channel.
  const waiting = () => {
    const children = childrenOf()
    const early = watchers.filter(({ ended }) => ended !== undefined)
    if (early.length > 0) throw new Error(`${early.length} watchers ended early: ${JSON.stringify(early[0]!.ended)}`)
    return watchers.filter(({ pid }) =>
      tree(pid, children).some((each) => {
        try {
          return readFileSync(`/proc/${each}/cmdline`, "utf8").split("\0").includes("wait-for")
        } catch {
          return false
        }
      })
    ).length
  }
  // A loaded machine starts 50 Node processes slowly.
  const deadline = Date.now() + 300_000
  for (let seen = waiting(); seen < count; seen = waiting()) {
    if (Date.now() > deadline) throw new Error(`${seen} of ${count} watchers waited within 300 s`)
    await new Promise((wake) => setTimeout(wake, 200))
  }
  // A moment for each to settle into its wait (its first /proc look).
  await new Promise((wake) => setTimeout(wake, 3000))
  const children = childrenOf()
  const programs = new Map<string, number>()
  let processes = 0
  let rss = 0
  let anon = 0
  let pss = 0
  for (const { pid } of watchers) {
    for (const each of tree(pid, children)) {
      processes++
      programs.set(program(each), (programs.get(program(each)) ?? 0) + 1)
      rss += kb(each, "status", "VmRSS")
      anon += kb(each, "status", "RssAnon")
      pss += kb(each, "smaps_rollup", "Pss")
    }
  }
  const mb = (kilobytes: number) => `${(kilobytes / 1024).toFixed(0)} MB`
  console.log(
    `${count} watchers: ${processes} processes (${
      [...programs].map(([name, n]) => `${n} ${name}`).join(", ")
    }); summed VmRSS ${mb(rss)}, RssAnon ${mb(anon)}, Pss ${mb(pss)}; per watcher Pss ${mb(pss / count)}`
  )
  writeFileSync(go, "")
  const ends = await Promise.all(watchers.map(({ exited }) => exited))
  const failed = ends.filter(({ code }) => code !== 0)
  console.log(`after the runs ended: ${ends.length - failed.length} of ${count} watchers exited 0`)
  if (failed.length > 0) console.log(failed.slice(0, 3))
  await client.close()
}

try {
  await main()
} finally {
  const children = childrenOf()
  for (const pid of started.flatMap((pid) => tree(pid, children))) {
    try {
      process.kill(pid, "SIGKILL")
    } catch {
      // Already gone.
    }
  }
  world.dispose()
}
