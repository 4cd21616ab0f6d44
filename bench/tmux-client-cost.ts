/**
 * What one tmux command costs through a tmux client spawned for it, against the same command
 * written to one long-lived control-mode client (`tmux -C`), the way the server sends most
 * commands (src/platform/TmuxControl.ts; a benchmark, not a test). Each way runs `list-sessions`
 * N times on a private tmux server and prints, per command, the processor time of this process (a
 * spawn from Node forks it), of the tmux server, of the clients (the spawned ones, reaped: this
 * process's children's time), and the wall time. Usage: node bench/tmux-client-cost.ts [commands]
 * (default 300).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { benchWorld, runThenRemove, ticks } from "./world.ts"

const count = Number(process.argv[2] ?? "300")
const world = benchWorld()
const format = "#{session_id} #{session_name} #{session_windows}"
const ms = (tickCount: number) => `${((tickCount * 10) / count).toFixed(2)} ms`

/** Runs `commands` once, then reports its cost per command next to the server's and the clients'. */
const measure = async (label: string, commands: () => Promise<void>, client?: ChildProcess) => {
  const server = Number((await world.tmux("display-message", "-p", "#{pid}")).trim())
  const [self0, children0] = ticks("self")
  const [server0] = ticks(server)
  const [client0] = client === undefined ? [0] : ticks(client.pid!)
  const started = performance.now()
  await commands()
  const wall = (performance.now() - started) / count
  const [self1, children1] = ticks("self")
  const [server1] = ticks(server)
  const [client1] = client === undefined ? [0] : ticks(client.pid!)
  const clients = client === undefined ? children1 - children0 : client1 - client0
  console.log(
    `${label}: this process ${ms(self1 - self0)}, tmux server ${ms(server1 - server0)}, ` +
      `client${client === undefined ? "s" : ""} ${ms(clients)}, wall ${wall.toFixed(2)} ms per command`
  )
}

const spawned = () =>
  new Promise<void>((done, fail) => {
    const child = spawn("tmux", ["-L", "libtmux-mcp", "list-sessions", "-F", format], {
      env: world.env,
      stdio: ["ignore", "pipe", "ignore"]
    })
    child.stdout.resume()
    child.on("error", fail)
    child.on("close", (code) => code === 0 ? done() : fail(new Error(`tmux exited ${code}`)))
  })

/** One control-mode client: each command's answer ends with a `%end` or `%error` line. */
const controlClient = () => {
  const client = spawn("tmux", ["-L", "libtmux-mcp", "-C", "attach", "-t", "bench"], {
    env: world.env,
    stdio: ["pipe", "pipe", "ignore"]
  })
  // The attach itself is answered first: its `%end` is awaited before any command is sent.
  let attached: () => void = () => undefined
  const ready = new Promise<void>((done) => (attached = done))
  const waiting: Array<() => void> = [() => attached()]
  let pending = ""
  client.stdout.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8")
    const lines = pending.split("\n")
    pending = lines.pop() ?? ""
    for (const line of lines) if (line.startsWith("%end ") || line.startsWith("%error ")) waiting.shift()?.()
  })
  const send = (command: string) =>
    new Promise<void>((done) => {
      waiting.push(done)
      client.stdin.write(`${command}\n`)
    })
  return { client, ready, send }
}

await runThenRemove(
  async () => {
    // By name, as the server reaches its socket (the folder it goes in does not exist yet).
    execFileSync(
      "tmux",
      ["-L", "libtmux-mcp", "-f", world.env.LIBTMUX_TMUX_CONFIG, "new-session", "-d", "-s", "bench"],
      {
        env: world.env
      }
    )
    for (let i = 0; i < 20; i++) await spawned()
    await measure("a client spawned per command", async () => {
      for (let i = 0; i < count; i++) await spawned()
    })
    const { client, ready, send } = controlClient()
    await ready
    // No pane output: only command answers come back.
    await send("refresh-client -f no-output")
    for (let i = 0; i < 20; i++) await send(`list-sessions -F '${format}'`)
    await measure("one control-mode client", async () => {
      for (let i = 0; i < count; i++) await send(`list-sessions -F '${format}'`)
    }, client)
    client.stdin.end()
  },
  world.env.HOME,
  world.env
)
