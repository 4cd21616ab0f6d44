/**
 * A hub's link when the network goes under it, over a real OpenSSH server on loopback (alpha): the
 * session's sshd is stopped, so the link goes silent both ways and nothing closes. The hub runs with
 * a 6 s link timeout (pings and ssh keep-alives every 2 s; the host's server exits after 6 s without
 * a message): the host's server ends without collecting its run, ssh's keep-alives end the hub's
 * side, and `resume` answers once the link is back. The other rows of docs/remote.md's failure
 * table run over in-memory hosts (test/integration/hub-failures.test.ts); a happy path over ssh is
 * test/e2e/hub.test.ts.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { readFileSync, realpathSync } from "node:fs"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { type HostMachine, startHostMachines, stopHostMachines } from "../support/hubHosts.ts"
import { startHubRun } from "../support/hubRuns.ts"
import { binPath, call, connect, type Connected, structured, textOf } from "../support/mcp.ts"
import { childProcesses, processesNaming, running, until } from "../support/poll.ts"
import { sshdAvailable } from "../support/sshd.ts"
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

/** Every process under `pid`, depth first. */
const descendants = (pid: number): Array<{ readonly pid: number; readonly args: ReadonlyArray<string> }> =>
  childProcesses(pid).flatMap((child) => [child, ...descendants(child.pid)])

const startRun = (host: string, paneId: string, command: string) => startHubRun(hub!.client, host, paneId, command)

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
  const started = await startHostMachines("hubfail", local, ["alpha"])
  machines = started.machines
  hub = await connect(local, { LIBTMUX_MCP_WAIT_MAX_SECONDS: "1" }, [
    "--host",
    "alpha=alpha",
    "--no-local",
    "--link-timeout",
    "6",
    ...started.reach,
    "--toolsets",
    "inspect,execute,teardown"
  ])
  await ok("create_session", { host: "alpha", session_name: "work" })
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

describe.skipIf(skip)("a hub's link when the network goes under it", () => {
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
})
