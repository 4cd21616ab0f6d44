/**
 * Hub benchmark (not a test): a real sshd on loopback stands for a host. Warm list_sessions and
 * capture_pane through the hub (`--host h=testhost`) against the same calls through a direct
 * `ssh -T` session to the host's server, same run, alternating; and the hub's first call to the
 * host (its connect) separately. Usage: node bench/hub.ts [rounds, default 100]
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { execFileSync } from "node:child_process"
import { realpathSync } from "node:fs"
import { join, resolve } from "node:path"
import { sshCommand } from "../src/domain/clientConfig.ts"
import { startSshdIn, stopSshd } from "../test/support/sshd.ts"
import { makeWorld } from "../test/support/tmux.ts"

const rounds = Number(process.argv[2] ?? 100)
const bin = realpathSync(resolve(import.meta.dirname, "../dist/libtmux-mcp.js"))
const world = makeWorld("bench-hub")
const { sshConfig, daemon } = await startSshdIn(world)
const env = { PATH: process.env.PATH ?? "", HOME: world.dir, TMUX_TMPDIR: join(world.dir, "hub") }
execFileSync("mkdir", ["-p", env.TMUX_TMPDIR])

const open = async (command: string, args: Array<string>) => {
  const client = new Client({ name: "bench-hub", version: "0" })
  await client.connect(new StdioClientTransport({ command, args, env, stderr: "ignore" }))
  return client
}
const median = (values: Array<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const timed = async (work: () => Promise<unknown>) => {
  const started = performance.now()
  const result = (await work()) as { isError?: boolean }
  if (result.isError === true) throw new Error(JSON.stringify(result))
  return performance.now() - started
}

try {
  const direct = sshCommand(
    { destination: "testhost", port: undefined, sshConfig, command: [process.execPath, bin] },
    { LIBTMUX_TOOLSETS: "inspect,execute" }
  )
  const host = await open(direct.command, direct.args)
  const hub = await open(process.execPath, [
    bin,
    "--host",
    "h=testhost",
    "--ssh-config",
    sshConfig,
    "--remote-node",
    process.execPath,
    "--remote-bin",
    bin,
    "--toolsets",
    "inspect,execute"
  ])
  const created = await host.callTool({ name: "create_session", arguments: { session_name: "bench" } })
  const pane = (created.structuredContent as { pane_id: string }).pane_id
  const connect = await timed(() => hub.callTool({ name: "list_sessions", arguments: { host: "h" } }))
  const calls = [
    ["list_sessions", {}],
    ["capture_pane", { pane_id: pane }]
  ] as const
  for (const [name, args] of calls) {
    const viaHost: Array<number> = []
    const viaHub: Array<number> = []
    for (let i = 0; i < rounds; i++) {
      viaHost.push(await timed(() => host.callTool({ name, arguments: args })))
      viaHub.push(await timed(() => hub.callTool({ name, arguments: { ...args, host: "h" } })))
    }
    const [a, b] = [median(viaHost), median(viaHub)]
    console.log(
      `${name}: direct ssh -T median ${a.toFixed(2)} ms, through the hub ${b.toFixed(2)} ms (${
        (b / a).toFixed(2)
      }x), ${rounds} rounds`
    )
  }
  console.log(`hub's first call to the host (ssh connect, initialize, tools/list, the call): ${connect.toFixed(0)} ms`)
  await hub.close()
  await host.close()
} finally {
  await stopSshd(daemon)
  world.dispose()
}
