/**
 * Task benchmark (not a test): what a run served as an MCP task costs while nothing happens, against
 * an idle wait_for_text, and how soon its end reaches a host that polls as the task asks.
 * - processor time over 10 s, as a share of one core (the server with its tmux clients, and the tmux
 *   server), of: a task of `sleep 600` polled with tasks/get every pollIntervalMs; a wait_for_text
 *   for text that never comes; interleaved, five rounds each, medians;
 * - from a run's end (the `date` its command writes last) to the poll that answers `completed`,
 *   polling every pollIntervalMs as the task asks; five runs, median and max;
 * - from a server's spawn to its answer to `server/discover` (a host's first message), five spawns
 *   (target: within a second; Claude Code waits 3 s), against `node -e 0` spawned the same way.
 * Usage: node bench/task-idle.ts (after npm run build).
 */
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { createInterface } from "node:readline"
import { benchWorld, coreShare, quantile, sleep } from "./world.ts"

const idleMs = Number(process.env.LIBTMUX_BENCH_IDLE_MS ?? 10_000)
const rounds = Number(process.env.LIBTMUX_BENCH_ROUNDS ?? 5)
const world = benchWorld()
const envelope = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } }
}

const startServer = () => {
  const child = spawn(process.execPath, [join(resolve(import.meta.dirname, ".."), "dist/libtmux-mcp.js")], {
    env: { ...world.env, LIBTMUX_TOOLSETS: "inspect,manage,execute,teardown" },
    stdio: ["pipe", "pipe", "ignore"]
  })
  const waiting = new Map<number, (message: any) => void>()
  let next = 0
  createInterface({ input: child.stdout }).on("line", (line) => {
    const message = JSON.parse(line)
    waiting.get(message.id)?.(message)
    waiting.delete(message.id)
  })
  const request = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<any>((done) => {
      const id = ++next
      waiting.set(id, done)
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: envelope } })}\n`)
    })
  return { child, request }
}

const main = async () => {
  const { child, request } = startServer()
  const call = async (name: string, args: Record<string, unknown>) =>
    (await request("tools/call", { name, arguments: args })).result
  const pane =
    (await call("create_session", { session_name: "idle", width: 120, height: 40 })).structuredContent.pane_id
  await call("run_shell_command", { pane_id: pane, command: "true" })
  const tmuxPid = Number((await world.tmux("display-message", "-p", "#{pid}")).trim())
  const task: Array<number> = []
  const wait: Array<number> = []
  let poll = 500
  for (let round = 0; round < rounds; round++) {
    const created = await call("run_shell_command", { pane_id: pane, command: "sleep 600" })
    poll = created.pollIntervalMs
    await sleep(1_000)
    const polled = await coreShare(child.pid!, tmuxPid, async () => {
      const until = performance.now() + idleMs
      while (performance.now() < until) {
        await request("tasks/get", { taskId: created.taskId })
        await sleep(poll)
      }
    })
    task.push(polled.total)
    await request("tasks/cancel", { taskId: created.taskId })
    while ((await request("tasks/get", { taskId: created.taskId })).result.status !== "completed") await sleep(poll)
    const waiting = call("wait_for_text", { pane_id: pane, patterns: [`never-${round}-x`], timeout: 60 })
    await sleep(1_000)
    wait.push((await coreShare(child.pid!, tmuxPid, () => sleep(idleMs))).total)
    await world.tmux("send-keys", "-t", pane, `printf 'never-${round}-%s\\n' x`, "Enter")
    await waiting
  }
  const ends: Array<number> = []
  const mark = join(world.env.HOME, "ended")
  for (let round = 0; round < 5; round++) {
    const created = await call("run_shell_command", { pane_id: pane, command: `sleep 6; date +%s%N > ${mark}` })
    for (;;) {
      const got = (await request("tasks/get", { taskId: created.taskId })).result
      if (got.status === "completed") break
      await sleep(poll)
    }
    ends.push(Date.now() - Number(readFileSync(mark, "utf8")) / 1e6)
  }
  const pct = (share: number) => `${(share * 100).toFixed(2)}%`
  const medianTask = quantile(task, 0.5)
  const medianWait = quantile(wait, 0.5)
  console.log(
    `idle over ${
      idleMs / 1000
    } s, share of one core (server, its tmux clients, the tmux server), medians of ${rounds}: ` +
      `a task polled every ${poll} ms ${pct(medianTask)} [${task.map(pct).join(", ")}], an idle wait_for_text ` +
      `${pct(medianWait)} [${wait.map(pct).join(", ")}]: ratio ${(medianTask / medianWait).toFixed(2)}x`
  )
  console.log(
    `a task's end to the completing poll (polled every ${poll} ms): median ${quantile(ends, 0.5).toFixed(0)} ms, ` +
      `max ${Math.max(...ends).toFixed(0)} ms (target < 1000 ms)`
  )
  child.stdin.end()
  const discover: Array<number> = []
  const bare: Array<number> = []
  for (let round = 0; round < 5; round++) {
    const spawned = performance.now()
    const { child: probe, request: ask } = startServer()
    await ask("server/discover")
    discover.push(performance.now() - spawned)
    probe.stdin.end()
    const nodeStarted = performance.now()
    await new Promise((done) => spawn(process.execPath, ["-e", "0"]).on("close", done))
    bare.push(performance.now() - nodeStarted)
    await sleep(300)
  }
  console.log(
    `spawn to the server/discover answer: median ${quantile(discover, 0.5).toFixed(0)} ms, max ${
      Math.max(...discover).toFixed(0)
    } ms (target <= 1000 ms); node -e 0 to its exit: median ${quantile(bare, 0.5).toFixed(0)} ms`
  )
}

try {
  await main()
} finally {
  world.dispose()
}
