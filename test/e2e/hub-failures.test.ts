/**
 * A hub's links when they fail, over two real OpenSSH servers on loopback (alpha and beta) and a
 * host on a closed port (down). The hub runs with a 6 s link timeout (pings and ssh keep-alives
 * every 2 s; a host's server exits after 6 s without a message), which exercises the same code as
 * the default 45 s. A quiet link is kept by the hub's pings; a host that stays down answers at
 * once during its back-off; a read in flight when its session dies is sent once more,
 * wait_for_text and a mutation never; a run in flight when its host's sshd
 * and session are killed answers OutcomeUnknown naming the run, which resume answers once the
 * sshd is back; a partition (the session's sshd stopped) ends the host's server without collecting
 * its run; a hung host's server fails only its own calls, at their deadline, and serves again
 * after SIGCONT. One shared setup; everything is ended at the end.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { readFileSync, realpathSync } from "node:fs"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { runIdMetaKey } from "../../src/services/Progress.ts"
import { type HostMachine, startHostMachines, stopHostMachines } from "../support/hubHosts.ts"
import { binPath, call, connect, type Connected, structured, textOf } from "../support/mcp.ts"
import { childProcesses, holdsFor, processesNaming, running, until } from "../support/poll.ts"
import { freePort, runSshdIn, sshdAvailable, stopSshd } from "../support/sshd.ts"
import { makeWorld, type TmuxWorld } from "../support/tmux.ts"

// CI installs openssh-server: there the test must run.
const skip = !sshdAvailable && process.env.CI !== "true"

let machines: Array<HostMachine> = []
let local: TmuxWorld | undefined
/** Processes a test stopped: continued at the end whatever happened. */
const stopped = new Set<number>()
let hub: Connected | undefined

const errorTag = (result: CallToolResult) =>
  (result._meta as Record<string, unknown> | undefined)?.[
    "com.git-pull.libtmux-mcp/error"
  ]
const run = (name: string, args: Record<string, unknown>) => call(hub!, name, args, { timeout: 60_000 })
const ok = async (name: string, args: Record<string, unknown>) => structured(await run(name, args))
const machine = (name: string) => machines.find((candidate) => candidate.name === name)!

/** The host's own server processes (node running the bin, with that host's audit file). */
const hostServers = (name: string): Array<number> =>
  processesNaming(`LIBTMUX_AUDIT_LOG=${machine(name).auditPath}`).filter((pid) => {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
      return args[1] === realpathSync(binPath) && running(pid)
    } catch {
      return false
    }
  })

/** The hub's ssh client for a host: the hub's child whose command names that host's alias. */
const sshOf = (name: string): Array<number> =>
  childProcesses(hub!.pid?.() ?? 0).filter(({ args }) => args[0] === "ssh" && args.includes(name))
    .map(({ pid }) => pid)

/** Every process under `pid`, depth first. */
const descendants = (pid: number): Array<{ readonly pid: number; readonly args: ReadonlyArray<string> }> =>
  childProcesses(pid).flatMap((child) => [child, ...descendants(child.pid)])

/** The hub's audit intents, and the host's audit records of one hub call. */
const hubIntents = () =>
  hub!.stderr().split("\n").filter((line) => line.includes("\"tool_call_intent\""))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
const hostIntentsOf = (name: string, hubCall: unknown) =>
  readFileSync(machine(name).auditPath, "utf8").trim().split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.event === "tool_call_intent" && line.hub_call === hubCall)

/** A run_shell_command through the hub, and the run ID its progress names once it came. */
const startRun = (host: string, paneId: string, command: string) => {
  const named = Promise.withResolvers<string>()
  const answer = hub!.client.callTool(
    { name: "run_shell_command", arguments: { host, pane_id: paneId, command, timeout: 20 } },
    undefined,
    {
      timeout: 60_000,
      onprogress: (progress) => {
        // The run's ID travels as data, in the report's `_meta`, from the host's server through the hub.
        const id = (progress as { readonly _meta?: Readonly<Record<string, unknown>> })._meta?.[runIdMetaKey]
        if (typeof id === "string") named.resolve(id)
      }
    }
  ) as Promise<CallToolResult>
  answer.catch(() => undefined)
  return { answer, runId: named.promise }
}

/** Waits until the pane shows the command typed (the run's ID comes before its typing). */
const typed = (host: string, paneId: string, text: string) =>
  until(
    `the command to be typed in ${host}'s ${paneId}`,
    async () => structured(await run("capture_pane", { host, pane_id: paneId })).content as string,
    (content) => content.includes(text)
  )

const signal = (pids: ReadonlyArray<number>, name: "SIGSTOP" | "SIGCONT") => {
  for (const pid of pids) {
    try {
      process.kill(pid, name)
      if (name === "SIGSTOP") stopped.add(pid)
      else stopped.delete(pid)
    } catch {
      // Gone already.
    }
  }
}

/** Resumes a run on its host once the host serves again (its back-off may still be running). */
const resumed = (host: string, paneId: string, runId: string) =>
  until(
    `run ${runId} to be resumed on ${host}`,
    () => run("run_shell_command", { host, pane_id: paneId, resume: runId }),
    (result) => errorTag(result) !== "HostUnreachable",
    { timeoutMs: 40_000, intervalMs: 200 }
  )

beforeAll(async () => {
  if (skip) return
  local = makeWorld("hubfail")
  const started = await startHostMachines("hubfail", local, ["alpha", "beta"])
  machines = started.machines
  hub = await connect(local, { LIBTMUX_MCP_WAIT_MAX_SECONDS: "1" }, [
    "--host",
    "alpha=alpha",
    "--host",
    "beta=beta",
    "--host",
    `down=127.0.0.1:${await freePort()}`,
    "--no-local",
    "--link-timeout",
    "6",
    ...started.reach,
    "--toolsets",
    "inspect,execute,teardown"
  ])
  await Promise.all(["alpha", "beta"].map((host) => ok("create_session", { host, session_name: "work" })))
}, 90_000)

afterAll(async () => {
  signal([...stopped], "SIGCONT")
  await hub?.close().catch(() => undefined)
  await stopHostMachines(machines)
  for (const machine of machines) machine.world.dispose()
  local?.dispose()
}, 60_000)

const paneOf = async (host: string) =>
  ((await ok("list_panes", { host, session_name: "work" })).panes as Array<{ pane_id: string }>)[0]!.pane_id

describe.skipIf(skip)("a hub's links when they fail", () => {
  it("answers a host that stays down at once during its back-off, quoting ssh, and shows the next try", async () => {
    // Three failed connects in a row: a 4 s pause, long enough for the calls below on any machine.
    const info = await until(
      "three failed connects to down",
      async () => {
        await run("list_sessions", { host: "down" })
        const hosts = (await ok("get_server_info", {})).hosts as Array<Record<string, unknown>>
        return hosts.find((host) => host.host === "down")!
      },
      (down) => typeof down.failures === "number" && down.failures >= 3,
      { timeoutMs: 20_000, intervalMs: 100 }
    )
    const answers: Array<CallToolResult> = []
    // Each answer within 1 s (the request fails otherwise), and none tries ssh again.
    for (let i = 0; i < 20; i++) answers.push(await call(hub!, "list_sessions", { host: "down" }, { timeout: 1_000 }))
    for (const answer of answers) {
      assert.isTrue(answer.isError)
      assert.strictEqual(errorTag(answer), "HostUnreachable")
      assert.match(textOf(answer), /^host down is unreachable: .*refused.*; not tried again until \S+ \(in /u)
    }
    const after = ((await ok("get_server_info", {})).hosts as Array<Record<string, unknown>>)
      .find((host) => host.host === "down")!
    assert.strictEqual(after.state, "unreachable")
    assert.strictEqual(after.failures, info.failures, "a call during the back-off tried ssh")
    assert.match(after.last_error as string, /refused/u)
    assert.isFalse(Number.isNaN(Date.parse(after.next_try_at as string)))
  }, 60_000)

  it("keeps a quiet link: the hub's pings keep the host's server through twice the link timeout", async () => {
    await ok("list_sessions", { host: "beta" })
    const [server] = await until("beta's server", () => hostServers("beta"), (pids) => pids.length === 1)
    await holdsFor(13_000, "beta's server keeps running without a call", () => running(server!))
    assert.deepStrictEqual(hostServers("beta"), [server])
    assert.isFalse((await run("list_sessions", { host: "beta" })).isError === true)
  }, 60_000)

  it(
    "sends a read in flight once more on a new session when its session dies; wait_for_text and a mutation never",
    async () => {
      const pane = await paneOf("alpha")
      const [server] = await until("alpha's server", () => hostServers("alpha"), (pids) => pids.length === 1)
      // alpha's server hears but does not answer: the calls are in flight when the session goes.
      signal([server!], "SIGSTOP")
      const read = run("list_sessions", { host: "alpha" })
      const write = run("create_window", { host: "alpha", session_name: "work", window_name: "maybe" })
      const waited = run("wait_for_text", { host: "alpha", pane_id: pane, patterns: ["never-printed"], timeout: 20 })
      const tools = ["list_sessions", "create_window", "wait_for_text"]
      const intents = await until(
        "the hub's intents of the three calls",
        () => hubIntents().filter((line) => line.host === "alpha" && tools.includes(String(line.tool))).slice(-3),
        (lines) => tools.every((tool) => lines.some((line) => line.tool === tool))
      )
      const [ssh] = await until("the hub's ssh session to alpha", () => sshOf("alpha"), (pids) => pids.length === 1)
      process.kill(ssh!, "SIGKILL")
      const [readAnswer, writeAnswer, waitAnswer] = await Promise.all([read, write, waited])
      // wait_for_text reads, but is not sent again: what it waited for may have come meanwhile.
      assert.strictEqual(errorTag(waitAnswer), "OutcomeUnknown", textOf(waitAnswer))
      assert.match(textOf(waitAnswer), /^wait_for_text on host alpha ended without an answer: .*not sent again/u)
      assert.isFalse(readAnswer.isError === true, textOf(readAnswer))
      assert.include(
        (structured(readAnswer).sessions as Array<{ session_name: string }>).map((item) => item.session_name),
        "work"
      )
      assert.strictEqual(errorTag(writeAnswer), "OutcomeUnknown", textOf(writeAnswer))
      assert.match(textOf(writeAnswer), /^the outcome of create_window on host alpha is unknown: .*not sent again/u)
      // The old server goes on EOF once continued; the new one served the read, sent once more.
      signal([server!], "SIGCONT")
      await until("alpha's old server to exit", () => running(server!), (alive) => !alive)
      const writeCall = intents.find((line) => line.tool === "create_window")!.hub_call
      const readCall = intents.find((line) => line.tool === "list_sessions")!.hub_call
      assert.isAtMost(hostIntentsOf("alpha", writeCall).length, 1, "create_window was sent again")
      assert.strictEqual(hostIntentsOf("alpha", readCall).length, 1)
      const waitCall = intents.find((line) => line.tool === "wait_for_text")!.hub_call
      assert.isAtMost(hostIntentsOf("alpha", waitCall).length, 1, "wait_for_text was sent again")
    },
    60_000
  )

  it(
    "answers OutcomeUnknown with its run ID for a run whose sshd and session are killed; beta serves meanwhile; " +
      "resume answers once the sshd is back",
    async () => {
      const pane = await paneOf("beta")
      const { answer, runId } = startRun("beta", pane, "sleep 3; echo late-beta")
      const id = await runId
      await typed("beta", pane, "late-beta")
      await stopSshd(machine("beta").daemon)
      const [ssh] = await until("the hub's ssh session to beta", () => sshOf("beta"), (pids) => pids.length === 1)
      process.kill(ssh!, "SIGKILL")
      const [lost, other] = await Promise.all([answer, run("list_sessions", { host: "alpha" })])
      assert.strictEqual(errorTag(lost), "OutcomeUnknown", textOf(lost))
      assert.include(textOf(lost), `the outcome of run_shell_command on host beta is unknown`)
      assert.include(textOf(lost), `resume ${id}`)
      assert.isFalse(other.isError === true, textOf(other))
      // Down: beta's calls fail (at once, backing off); alpha's do not wait on them.
      const down = await run("list_sessions", { host: "beta" })
      assert.strictEqual(errorTag(down), "HostUnreachable")
      machine("beta").daemon = await runSshdIn(machine("beta").world)
      const back = await resumed("beta", pane, id)
      assert.isFalse(back.isError === true, textOf(back))
      assert.strictEqual((structured(back).output as string).trim(), "late-beta")
      assert.strictEqual(structured(back).exit_status ?? 0, 0)
    },
    90_000
  )

  it("ends the host's server without collecting its run when the link is partitioned; resume answers", async () => {
    const pane = await paneOf("alpha")
    const [server] = await until("alpha's server", () => hostServers("alpha"), (pids) => pids.length === 1)
    const { answer, runId } = startRun("alpha", pane, "sleep 2; echo after-partition")
    const id = await runId
    await typed("alpha", pane, "after-partition")
    // The session's own sshd processes (not the listener): the link goes silent both ways, nothing closes.
    const session = descendants(machine("alpha").daemon.pid!).filter(({ args }) => args[0]?.startsWith("sshd"))
      .map(({ pid }) => pid)
    assert.isAbove(session.length, 0)
    signal(session, "SIGSTOP")
    // The host's server hears nothing for the link timeout and exits as on EOF; ssh's keep-alives end the hub's side.
    await until("alpha's server to exit", () => running(server!), (alive) => !alive, { timeoutMs: 40_000 })
    const lost = await answer
    assert.strictEqual(errorTag(lost), "OutcomeUnknown", textOf(lost))
    assert.include(textOf(lost), `resume ${id}`)
    signal(session, "SIGCONT")
    const back = await resumed("alpha", pane, id)
    assert.isFalse(back.isError === true, textOf(back))
    assert.strictEqual((structured(back).output as string).trim(), "after-partition")
  }, 90_000)

  it("fails a hung host's call at its own deadline, serves the others, and serves again after SIGCONT", async () => {
    await ok("list_sessions", { host: "alpha" })
    const [server] = await until("alpha's server", () => hostServers("alpha"), (pids) => pids.length === 1)
    signal([server!], "SIGSTOP")
    const hung = run("list_sessions", { host: "alpha" })
    hung.catch(() => undefined)
    const others = await run("list_sessions", { host: "beta" })
    assert.isFalse(others.isError === true, textOf(others))
    // The hub's deadline for a call: its wait ceiling (1 s here) and 30 s more.
    const timedOut = await hung
    assert.strictEqual(errorTag(timedOut), "HostLost", textOf(timedOut))
    assert.match(textOf(timedOut), /^host alpha gave no answer \(no answer within 3\d(\.\d)? s\)/u)
    signal([server!], "SIGCONT")
    const again = await run("list_sessions", { host: "alpha" })
    assert.isFalse(again.isError === true, textOf(again))
    // The same server lives: stopped longer than the link timeout, it read the hub's pings before judging
    // the silence. (The hub may have started a second session meanwhile.)
    assert.isTrue(running(server!))
    assert.include(hostServers("alpha"), server)
  }, 90_000)
})
