/**
 * Hub soak (not a test): two real sshd on loopback stand for two hosts; for DURATION seconds
 * (default 600) a hub keeps typing commands and reading on both while its ssh session to one host
 * is killed every 30 s, in turn. It reports, and exits 1 when one fails: no command typed twice
 * (each hub call of run_shell_command reaches at most one host audit record), no call past its
 * deadline (the hub's wait ceiling and 30 s), the hub's memory (VmRSS) within +20 MB of its size
 * once the load has run its first minute (in that minute V8's heap grows to its working size, about
 * 15 MB over its size after the 20-call warm-up; both figures are printed); and the answers by kind
 * (OutcomeUnknown and the resumes that followed them).
 * Usage: node bench/hub-soak.ts [seconds, default 600]
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { execFileSync } from "node:child_process"
import { chmodSync, readFileSync, realpathSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { childProcesses, processesNaming } from "../test/support/poll.ts"
import { startSshdIn, stopSshd } from "../test/support/sshd.ts"
import { makeWorld } from "../test/support/tmux.ts"

const seconds = Number(process.argv[2] ?? 600)
const dropEveryMs = 30_000
const waitMax = 20
const deadlineMs = (waitMax + 30) * 1000
const bin = realpathSync(resolve(import.meta.dirname, "../dist/libtmux-mcp.js"))
const names = ["alpha", "beta"] as const
const local = makeWorld("soak-hub")
const hosts = await Promise.all(names.map(async (name) => {
  const world = makeWorld(`soak-${name}`)
  const { sshConfig, daemon } = await startSshdIn(world)
  const serve = join(world.dir, "serve.sh")
  writeFileSync(
    serve,
    `#!/bin/sh\nLIBTMUX_AUDIT_LOG="${join(world.dir, "audit.log")}" exec "${process.execPath}" "${bin}" "$@"\n`
  )
  chmodSync(serve, 0o755)
  return {
    name,
    world,
    daemon,
    serve,
    config: readFileSync(sshConfig, "utf8").replace("Host testhost", `Host ${name}`)
  }
}))
const sshConfig = join(local.dir, "ssh_config")
writeFileSync(sshConfig, hosts.map((host) => host.config).join("\n"))

const transport = new StdioClientTransport({
  command: process.execPath,
  args: [
    bin,
    ...hosts.flatMap((host) => ["--host", `${host.name}=${host.name}`, "--remote-bin", `${host.name}=${host.serve}`]),
    "--no-local",
    "--ssh-config",
    sshConfig,
    "--remote-node",
    "/bin/sh",
    "--toolsets",
    "inspect,execute"
  ],
  env: {
    PATH: process.env.PATH ?? "",
    HOME: local.dir,
    TMUX_TMPDIR: local.dir,
    LIBTMUX_MCP_WAIT_MAX_SECONDS: String(waitMax),
    LIBTMUX_AUDIT_LOG: join(local.dir, "audit.log")
  },
  stderr: "ignore"
})
const hub = new Client({ name: "bench-hub-soak", version: "0" })
await hub.connect(transport)
const hubPid = transport.pid!

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/u.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0)
const tagOf = (result: CallToolResult) =>
  result.isError === true
    ? String((result._meta as Record<string, unknown> | undefined)?.["com.git-pull.libtmux-mcp/error"] ?? "Unknown")
    : "ok"
const kinds = new Map<string, number>()
const count = (key: string) => kinds.set(key, (kinds.get(key) ?? 0) + 1)
let slowest = 0
let overDeadline = 0

/** One call through the hub, timed against the hub's own deadline (the request itself waits longer). */
const timed = async (name: string, args: Record<string, unknown>): Promise<CallToolResult | undefined> => {
  const started = performance.now()
  try {
    const result =
      (await hub.callTool({ name, arguments: args }, undefined, { timeout: deadlineMs + 30_000 })) as CallToolResult
    count(`${name}: ${tagOf(result)}`)
    return result
  } catch (error) {
    count(`${name}: request failed (${String(error).slice(0, 60)})`)
    return undefined
  } finally {
    const took = performance.now() - started
    slowest = Math.max(slowest, took)
    if (took > deadlineMs + 2_000) overDeadline++
  }
}

let stopping = false
const panes = new Map<string, string>()
for (const host of names) {
  const created = await timed("create_session", { host, session_name: "soak" })
  panes.set(host, (created!.structuredContent as { pane_id: string }).pane_id)
}
// Warm: both sessions up, a few calls each, before the memory baseline.
for (let i = 0; i < 20; i++) for (const host of names) await timed("list_sessions", { host })
const baseline = rssKb(hubPid)
let peak = baseline

const typer = async (host: string) => {
  let n = 0
  while (!stopping) {
    const pane = panes.get(host)!
    const result = await timed("run_shell_command", { host, pane_id: pane, command: `echo soak-${host}-${n++}` })
    const runId = (result?.structuredContent as { run_id?: string } | undefined)?.run_id ??
      /resume ([0-9a-f]{6})/u.exec(result?.content[0]?.type === "text" ? result.content[0].text : "")?.[1]
    if (result !== undefined && tagOf(result) === "OutcomeUnknown" && runId !== undefined) {
      // The run's status, once the host serves again: never typed again.
      for (let tries = 0; tries < 50 && !stopping; tries++) {
        const resumed = await timed("run_shell_command", { host, pane_id: pane, resume: runId })
        if (resumed !== undefined && tagOf(resumed) !== "HostUnreachable") break
        await new Promise((done) => setTimeout(done, 500))
      }
    }
    if (result !== undefined && tagOf(result) === "HostUnreachable") await new Promise((done) => setTimeout(done, 200))
  }
}
const reader = async (host: string) => {
  while (!stopping) {
    await (Math.random() < 0.5
      ? timed("list_sessions", { host })
      : timed("capture_pane", { host, pane_id: panes.get(host)! }))
    await new Promise((done) => setTimeout(done, 50))
  }
}

let drops = 0
const dropper = setInterval(() => {
  const host = names[drops % names.length]!
  for (const { pid } of childProcesses(hubPid).filter(({ args }) => args[0] === "ssh" && args.includes(host))) {
    process.kill(pid, "SIGKILL")
  }
  drops++
}, dropEveryMs)
const sampler = setInterval(() => void (peak = Math.max(peak, rssKb(hubPid))), 1_000)
// The size once the load has run a minute: growth after it is what a long session would keep adding.
let loaded = baseline
const loadedAt = setTimeout(() => void (loaded = rssKb(hubPid)), Math.min(60, seconds / 2) * 1000)
const workers = names.flatMap((host) => [typer(host), reader(host), reader(host)])
await new Promise((done) => setTimeout(done, seconds * 1000))
stopping = true
clearInterval(dropper)
await Promise.all(workers)
clearInterval(sampler)
clearTimeout(loadedAt)
const final = rssKb(hubPid)

// Typed twice: a hub call of run_shell_command that reached a host's audit more than once.
const hubCalls = readFileSync(join(local.dir, "audit.log"), "utf8").trim().split("\n").map((line) =>
  JSON.parse(line) as Record<string, unknown>
).filter((line) => line.event === "tool_call_intent" && line.tool === "run_shell_command")
let twice = 0
let reached = 0
for (const host of hosts) {
  const seen = new Map<unknown, number>()
  for (const line of readFileSync(join(host.world.dir, "audit.log"), "utf8").trim().split("\n")) {
    const record = JSON.parse(line) as Record<string, unknown>
    if (record.event === "tool_call_intent" && record.tool === "run_shell_command" && record.hub_call !== undefined) {
      seen.set(record.hub_call, (seen.get(record.hub_call) ?? 0) + 1)
    }
  }
  reached += seen.size
  twice += [...seen.values()].filter((times) => times > 1).length
}

await hub.close()
for (const host of hosts) {
  try {
    execFileSync("tmux", ["-S", join(host.world.socketDir, "libtmux-mcp"), "kill-server"], { stdio: "ignore" })
  } catch {
    // Already gone.
  }
  await stopSshd(host.daemon)
}
for (let i = 0; i < 100 && hosts.some((host) => processesNaming(host.world.dir).length > 0); i++) {
  await new Promise((done) => setTimeout(done, 100))
}
for (const world of [local, ...hosts.map((host) => host.world)]) world.dispose()

const grown = (final - baseline) / 1024
console.log(`soak: ${seconds} s over ${names.length} hosts, the link dropped ${drops} times (every 30 s)`)
console.log(
  `run_shell_command: ${hubCalls.length} hub calls, ${reached} reached a host, ${twice} reached one twice`
)
for (const [kind, times] of [...kinds].sort()) console.log(`  ${kind}: ${times}`)
console.log(`slowest call ${(slowest / 1000).toFixed(1)} s (deadline ${deadlineMs / 1000} s), ${overDeadline} past it`)
console.log(
  `hub VmRSS: ${(baseline / 1024).toFixed(1)} MB after warm-up, ${(final / 1024).toFixed(1)} MB at the end ` +
    `(${grown >= 0 ? "+" : ""}${grown.toFixed(1)} MB), peak ${(peak / 1024).toFixed(1)} MB; ` +
    `${(loaded / 1024).toFixed(1)} MB after the first ${Math.min(60, seconds / 2)} s of load, ` +
    `${((final - loaded) / 1024).toFixed(1)} MB since`
)
const failed = twice > 0 || overDeadline > 0 || (final - loaded) / 1024 > 20
if (failed) console.log("FAILED")
process.exit(failed ? 1 : 0)
