/**
 * One server as a hub for two hosts: two real OpenSSH servers on loopback ports, each with its own
 * HOME and tmux folder, stand for two machines running this same server; the hub (with `local`)
 * forwards calls to them over kept `ssh -T` sessions. Sessions and runs on both, a run resumed on its
 * host, a pane ID of one host refused by the other, an undeclared host refused, a host on a closed
 * port unreachable while the others keep serving, and the two audit records joined by a call ID; the
 * entry `--print-config` prints for a hub, started as a client would start it, serving through the
 * sshd, with its printed checks run. One shared setup; everything is ended at the end. (The failure
 * table's rows run over in-memory hosts: test/integration/hub-failures.test.ts.)
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { type HostMachine, startHostMachines, stopHostMachines } from "../support/hubHosts.ts"
import { binPath, call, commandToExit, connect, type Connected, serverEnv, structured, textOf } from "../support/mcp.ts"
import { until } from "../support/poll.ts"
import { freePort, sshdAvailable } from "../support/sshd.ts"
import { makeWorld, type TmuxWorld } from "../support/tmux.ts"

// CI installs openssh-server: there the test must run.
const skip = !sshdAvailable && process.env.CI !== "true"

let machines: Array<HostMachine> = []
let local: TmuxWorld | undefined
let hub: Connected | undefined
let closedPort = 0
/** The flags that reach alpha alone through the test's sshd: its alias, the hub's ssh config, its server's wrapper. */
let alphaReach: Array<string> = []

const timeout = { timeout: 60_000 }
const run = (name: string, args: Record<string, unknown>) => call(hub!, name, args, timeout)
const ok = async (name: string, args: Record<string, unknown>) => structured(await run(name, args))

beforeAll(async () => {
  if (skip) return
  local = makeWorld("hub")
  const started = await startHostMachines("hub", local, ["alpha", "beta"])
  machines = started.machines
  closedPort = await freePort()
  const beta = started.reach.indexOf(`beta=${join(machines[1]!.world.dir, "serve.sh")}`)
  alphaReach = ["--host", "alpha=alpha", ...started.reach.filter((_, i) => i !== beta && i !== beta - 1)]
  hub = await connect(local, {}, [
    "--host",
    "alpha=alpha",
    "--host",
    "beta=beta",
    "--host",
    `down=127.0.0.1:${closedPort}`,
    ...started.reach,
    "--toolsets",
    "inspect,execute,teardown"
  ])
}, 90_000)

afterAll(async () => {
  await hub?.close().catch(() => undefined)
  await stopHostMachines(machines)
  for (const machine of machines) machine.world.dispose()
  local?.dispose()
}, 60_000)

describe.skipIf(skip)("a hub of two hosts over ssh", () => {
  it("advertises host on every tool: an enum of the declared names, required on execute and teardown", async () => {
    const { tools } = await hub!.client.listTools()
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    for (const tool of tools) {
      assert.deepStrictEqual(
        (tool.inputSchema.properties?.host as { enum?: Array<string> } | undefined)?.enum,
        ["local", "alpha", "beta", "down"],
        tool.name
      )
    }
    assert.include(byName.get("run_shell_command")!.inputSchema.required ?? [], "host")
    assert.include(byName.get("kill_session")!.inputSchema.required ?? [], "host")
    assert.notInclude(byName.get("list_sessions")!.inputSchema.required ?? [], "host")
    const { instructions } = { instructions: hub!.client.getInstructions() ?? "" }
    assert.include(instructions, "Hosts: local, alpha, beta, down")
    assert.isAtMost(Buffer.byteLength(instructions), 2048)
  })

  it(
    "creates sessions and runs on both hosts in parallel, resumes a run on its host, keeps pane IDs per host",
    async () => {
      const [alpha, beta] = await Promise.all([
        ok("create_session", { host: "alpha", session_name: "work" }),
        ok("create_session", { host: "beta", session_name: "work" })
      ])
      assert.strictEqual(alpha.host, "alpha")
      assert.strictEqual(beta.host, "beta")
      const [onAlpha, onBeta] = await Promise.all([
        ok("run_shell_command", { host: "alpha", pane_id: alpha.pane_id, command: "echo \"$TMUX_TMPDIR\"" }),
        ok("run_shell_command", { host: "beta", pane_id: beta.pane_id, command: "echo \"$TMUX_TMPDIR\"; exit 4" })
      ])
      assert.strictEqual((onAlpha.output as string).trim(), machines[0]!.world.dir)
      assert.strictEqual(onAlpha.exit_status ?? 0, 0)
      assert.strictEqual((onBeta.output as string).trim(), machines[1]!.world.dir)
      assert.strictEqual(onBeta.exit_status, 4)
      assert.strictEqual(onBeta.host, "beta")

      // A run that outlasts its call, resumed on its host.
      const started = await ok("run_shell_command", {
        host: "alpha",
        pane_id: alpha.pane_id,
        command: "sleep 2; echo got-late",
        timeout: 1
      })
      assert.isTrue(started.timed_out)
      // The hub's own watch_command: ssh to the host as its table says, `wait` there (no line the host composed,
      // which names its socket and its Node), run here through sh until the run ends.
      const watch = started.watch_command as string
      assert.match(watch, /^'ssh' '-T' .* '--' 'alpha' /u)
      assert.notInclude(watch, "--socket")
      const watched = await commandToExit("sh", ["-c", watch], {
        env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "" },
        cwd: machines[0]!.world.dir
      })
      assert.strictEqual(watched.code, 0, watched.stderr)
      assert.include(watched.stdout, `${started.run_id as string} ended: exit status 0`)
      const other = await ok("create_session", { host: "alpha", session_name: "second" })
      const resumed = await ok("run_shell_command", { host: "alpha", pane_id: alpha.pane_id, resume: started.run_id })
      assert.strictEqual((resumed.output as string).trim(), "got-late")
      assert.strictEqual(resumed.host, "alpha")

      // alpha's second session's pane does not exist on beta: beta's own error, named with its host.
      assert.notStrictEqual(other.pane_id, beta.pane_id)
      const refused = await run("capture_pane", { host: "beta", pane_id: other.pane_id })
      assert.isTrue(refused.isError)
      assert.isTrue(textOf(refused).startsWith(`on host beta: pane ${other.pane_id} not found`), textOf(refused))
      assert.strictEqual(
        (refused._meta as Record<string, unknown>)["com.git-pull.libtmux-mcp/error"],
        "PaneNotFound"
      )

      // Local stays this machine, and the default.
      const localSessions = await ok("list_sessions", {})
      assert.strictEqual(localSessions.host, "local")
      assert.notInclude(
        (localSessions.sessions as Array<{ session_name: string }>).map((session) => session.session_name),
        "work"
      )
    },
    90_000
  )

  it("refuses an undeclared host and a missing host on an execute tool; acts on nothing", async () => {
    const undeclared = await run("list_sessions", { host: "gamma" })
    assert.isTrue(undeclared.isError)
    assert.include(textOf(undeclared), "host \"gamma\" is not one of this server's hosts; valid hosts: local, alpha")
    const missing = await run("create_session", { session_name: "nowhere" })
    assert.isTrue(missing.isError)
    assert.include(textOf(missing), "host is required")
  })

  it("answers HostUnreachable for a closed port while the other hosts keep serving", async () => {
    const down = await run("list_sessions", { host: "down" })
    assert.isTrue(down.isError)
    assert.strictEqual((down._meta as Record<string, unknown>)["com.git-pull.libtmux-mcp/error"], "HostUnreachable")
    assert.match(textOf(down), /^host down is unreachable: .*refused/u)
    const alive = await ok("list_sessions", { host: "beta" })
    assert.include((alive.sessions as Array<{ session_name: string }>).map((session) => session.session_name), "work")
    const info = await ok("get_server_info", {})
    const states = info.hosts as Array<{ host: string; state: string; version?: string; last_error?: string }>
    assert.deepStrictEqual(states.map((state) => [state.host, state.state]), [
      ["local", "local"],
      ["alpha", "connected"],
      ["beta", "connected"],
      ["down", "unreachable"]
    ])
    assert.match(states[3]!.last_error ?? "", /refused/u)
  })

  it("writes the hub's audit line before forwarding, and the host's audit records the same call ID", async () => {
    await ok("list_sessions", { host: "alpha" })
    const hubLines = hub!.stderr().split("\n").filter((line) => line.includes("\"tool_call_intent\""))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    const forwarded = hubLines.filter((line) => line.host === "alpha" && typeof line.hub_call === "string")
    assert.isAbove(forwarded.length, 0)
    const hostLines = readFileSync(join(machines[0]!.world.dir, "audit.log"), "utf8").trim().split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>)
    const joined = hostLines.filter((line) => line.event === "tool_call_intent" && line.hub_call !== undefined)
    assert.includeMembers(
      forwarded.map((line) => line.hub_call),
      joined.map((line) => line.hub_call)
    )
    assert.strictEqual(joined.length, forwarded.length)
  })

  it("passes a call's progress back and its cancellation on: the host's call ends when the agent's does", async () => {
    const pane = (await ok("list_panes", { host: "alpha" })).panes[0].pane_id as string
    const reports: Array<number> = []
    const cancel = new AbortController()
    const waited = hub!.client.callTool(
      { name: "wait_for_text", arguments: { host: "alpha", pane_id: pane, patterns: ["never-printed"], timeout: 60 } },
      undefined,
      {
        signal: cancel.signal,
        timeout: 90_000,
        onprogress: (progress) => {
          reports.push(progress.progress)
          if (reports.length === 2) cancel.abort()
        }
      }
    ).then(() => "answered", () => "cancelled")
    assert.strictEqual(await waited, "cancelled")
    assert.strictEqual(reports.length, 2)
    // The host's own audit: the call the hub forwarded (joined by its hub_call) ends long before its 60 s.
    const hubCall = hub!.stderr().split("\n").filter((line) => line.includes("\"tool_call_intent\""))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.tool === "wait_for_text" && line.host === "alpha").at(-1)?.hub_call
    assert.isString(hubCall)
    await until("the host's wait_for_text to end", () => {
      const lines = readFileSync(join(machines[0]!.world.dir, "audit.log"), "utf8").trim().split("\n")
        .map((line) => JSON.parse(line) as Record<string, unknown>)
      const intent = lines.find((line) => line.event === "tool_call_intent" && line.hub_call === hubCall)
      return intent !== undefined &&
        lines.some((line) =>
          line.event === "tool_call_outcome" && line.instance === intent.instance && line.call === intent.call
        )
    })
  })

  it(
    "answers OutcomeUnknown for a run in flight when its session dies, and the next call starts a new one",
    async () => {
      const session = await ok("create_session", { host: "beta", session_name: "lost" })
      const inFlight = run("run_shell_command", {
        host: "beta",
        pane_id: session.pane_id,
        command: "sleep 25",
        timeout: 20
      })
      // Awaited below; a failure before then must not leave its rejection unhandled.
      inFlight.catch(() => undefined)
      // The hub's ssh client for beta: the hub's child whose command names that host's alias.
      const hubPid = hub!.pid?.()
      const sshOfBeta = () =>
        execFileSync("ps", ["-eo", "pid=,ppid=,args="], { encoding: "utf8" }).split("\n")
          .map((line) => line.trim().split(/\s+/u))
          .filter(([, ppid, ...args]) => Number(ppid) === hubPid && args[0] === "ssh" && args.includes("beta"))
          .map(([pid]) => Number(pid))
      const [pid] = await until("the hub's ssh session to beta", sshOfBeta, (pids) => pids.length === 1)
      // In flight: typed there (a session killed before the call went would only carry it on a new one).
      await until(
        "the run to be typed on beta",
        () => machines[1]!.world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", String(session.pane_id)),
        (screen) => screen.includes("sleep 25")
      )
      process.kill(pid!, "SIGKILL")
      const lost = await inFlight
      assert.isTrue(lost.isError)
      assert.strictEqual((lost._meta as Record<string, unknown>)["com.git-pull.libtmux-mcp/error"], "OutcomeUnknown")
      assert.include(textOf(lost), "may or may not have acted there and it was not sent again")
      const again = await ok("list_sessions", { host: "beta" })
      assert.include((again.sessions as Array<{ session_name: string }>).map((item) => item.session_name), "lost")
    },
    60_000
  )
})

describe.skipIf(skip)("--print-config for a hub", () => {
  it("prints an entry that, started as the client starts it, serves through the host; its checks succeed", async () => {
    const printed = await commandToExit(process.execPath, [
      binPath,
      "--print-config",
      "cursor",
      ...alphaReach,
      "--no-local",
      "--toolsets",
      "inspect"
    ], { env: serverEnv(local!), cwd: local!.dir })
    assert.strictEqual(printed.code, 0, printed.stderr)
    const entry = JSON.parse(printed.stdout).mcpServers["libtmux-mcp"] as {
      command: string
      args: Array<string>
      env: Record<string, string>
    }
    assert.deepStrictEqual(entry.env, { LIBTMUX_HOSTS: "alpha=alpha", LIBTMUX_TOOLSETS: "inspect" })
    const transport = new StdioClientTransport({
      command: entry.command,
      args: entry.args,
      env: { ...serverEnv(local!), ...entry.env },
      cwd: "/",
      stderr: "pipe"
    })
    const client = new Client({ name: "libtmux-mcp-tests", version: "0.0.0" })
    await client.connect(transport)
    try {
      // With --no-local alpha is the default host.
      const listed =
        (await client.callTool({ name: "list_sessions", arguments: {} }, undefined, timeout)) as CallToolResult
      assert.strictEqual(structured(listed).host, "alpha")
    } finally {
      await client.close()
    }
    // The checks printed on stderr, run as a person would paste them (alpha's "Node" here is the wrapper's sh).
    const check = (what: string) => {
      const line = printed.stderr.split("\n").find((note) => note.startsWith(`libtmux-mcp: alpha ${what}`))
      assert.isDefined(line, printed.stderr)
      return commandToExit("sh", ["-c", line!.replace(/^libtmux-mcp: alpha [^:]+: /u, "")], {
        env: serverEnv(local!),
        cwd: local!.dir
      })
    }
    const reachable = await check("reachable")
    assert.strictEqual(reachable.code, 0, reachable.stderr)
    const version = await check("server")
    assert.strictEqual(version.code, 0, version.stderr)
    assert.match(version.stdout, /^libtmux-mcp \d+\.\d+\.\d+/u)
  }, 60_000)
})
