/**
 * docs/remote.md's failure table, row by row, over in-memory hosts (test/support/memoryHosts.ts):
 * the hub and each host's server run in this process, each host over a tmux world of its own, and
 * each session's link breaks as the field breaks it. The hub has a 3 s link timeout (pings every
 * second; a host's server stops after 3 s without a message) and a 1 s wait ceiling, so a call's own
 * deadline is 31 s. Each test has its own hub and hosts; what needs a real ssh (its keep-alives, its
 * processes) is in test/e2e/hub-failures.test.ts.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { existsSync, readFileSync } from "node:fs"
import { assert, describe, it } from "vitest"
import { startHubRun } from "../support/hubRuns.ts"
import { connectInProcess } from "../support/inProcess.ts"
import { call, type Connected, structured, textOf } from "../support/mcp.ts"
import { type MemoryHost, memoryHost, memorySessions } from "../support/memoryHosts.ts"
import { holdsFor, until } from "../support/poll.ts"
import { makeWorld, type TmuxWorld } from "../support/tmux.ts"

const linkTimeout = 3

const errorTag = (result: CallToolResult) =>
  (result._meta as Record<string, unknown> | undefined)?.["com.git-pull.libtmux-mcp/error"]

/** A hub over in-memory hosts of these names, a session `work` on each of `sessions`; the hub's flags after. */
const open = async (
  finished: (cleanup: () => Promise<void>) => void,
  names: ReadonlyArray<string>,
  flags: ReadonlyArray<string> = [],
  sessions: ReadonlyArray<string> = names,
  link = linkTimeout
) => {
  const worlds: Array<TmuxWorld> = []
  const world = (name: string) => {
    const made = makeWorld(`hubmem-${name}`)
    worlds.push(made)
    return made
  }
  // The test's own hub and hosts go when it ends (the others run on): through its own context, as
  // the tests run at once.
  let hub: Connected | undefined
  finished(async () => {
    await hub?.close().catch(() => undefined)
    for (const made of hosts) await made.stop()
    for (const made of worlds) made.dispose()
  })
  const hosts = names.map((name) => memoryHost(name, world(name)))
  hub = await connectInProcess(
    world("hub"),
    { LIBTMUX_MCP_WAIT_MAX_SECONDS: "1" },
    [
      ...names.flatMap((name) => ["--host", `${name}=${name}.example`]),
      "--no-local",
      "--link-timeout",
      String(link),
      "--toolsets",
      "inspect,execute,teardown",
      ...flags
    ],
    { hostSessions: memorySessions(hosts, link) }
  )
  const host = (name: string) => hosts.find((candidate) => candidate.name === name)!
  const run = (name: string, args: Record<string, unknown>) => call(hub, name, args, { timeout: 60_000 })
  const ok = async (name: string, args: Record<string, unknown>) => structured(await run(name, args))
  for (const name of sessions) await ok("create_session", { host: name, session_name: "work" })
  const paneOf = async (name: string) =>
    ((await ok("list_panes", { host: name, session_name: "work" })).panes as Array<{ pane_id: string }>)[0]!.pane_id
  /** What get_server_info, asked on `via`, says of host `name`. */
  const hostInfo = async (name: string, via = names[0]) =>
    ((await ok("get_server_info", { host: via })).hosts as Array<Record<string, unknown>>).find((entry) =>
      entry.host === name
    )!
  const startRun = (name: string, paneId: string, command: string) => startHubRun(hub!.client, name, paneId, command)
  const typed = (name: string, paneId: string, text: string) =>
    until(
      `the command to be typed in ${name}'s ${paneId}`,
      () => host(name).world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", paneId),
      (content) => content.includes(text)
    )
  return { hub, host, run, ok, paneOf, hostInfo, startRun, typed }
}

/** The host's audit intents the hub's call with this ID led to. */
const hostIntents = (host: MemoryHost, tool: string) =>
  (existsSync(host.auditPath) ? readFileSync(host.auditPath, "utf8").trim().split("\n") : [])
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.event === "tool_call_intent" && line.tool === tool)

describe.concurrent("a hub's failure table, over in-memory hosts", () => {
  // First: its 31 s deadline runs while the other rows do.
  it(
    "a hung host: its call fails at its own deadline, the others are served, and it serves again",
    async (t) => {
      // A stopped host's clock stops too: its server must not judge the silence meanwhile.
      const { host, run } = await open(t.onTestFinished, ["alpha", "beta"], [], ["alpha", "beta"], 45)
      host("alpha").stall()
      const hung = run("list_sessions", { host: "alpha" })
      assert.isFalse((await run("list_sessions", { host: "beta" })).isError === true)
      const timedOut = await hung
      assert.strictEqual(errorTag(timedOut), "HostLost", textOf(timedOut))
      assert.match(textOf(timedOut), /^host alpha gave no answer \(no answer within 3\d(\.\d)? s\)/u)
      host("alpha").heal()
      const again = await run("list_sessions", { host: "alpha" })
      assert.isFalse(again.isError === true, textOf(again))
    },
    60_000
  )

  it("ssh cannot connect: HostUnreachable quoting ssh, in its back-off at once; get_server_info says", async (t) => {
    const { host, run, hostInfo } = await open(t.onTestFinished, ["alpha", "down"], [], [])
    host("down").refuse = "ssh: connect to host down.example port 22: Connection refused"
    const first = await run("list_sessions", { host: "down" })
    assert.strictEqual(errorTag(first), "HostUnreachable")
    assert.match(textOf(first), /^host down is unreachable: ssh: connect to host .* Connection refused/u)
    const during = await run("list_sessions", { host: "down" })
    assert.match(textOf(during), /refused.*; not tried again until \S+ \(in .*after 1 failed connect in a row\)/u)
    assert.strictEqual(host("down").opened(), 1, "a call during the back-off started a session")
    const info = await hostInfo("down")
    assert.deepInclude(info, { state: "unreachable", failures: 1 })
    assert.match(info.last_error as string, /refused/u)
    assert.isFalse(Number.isNaN(Date.parse(info.next_try_at as string)))
    // Fixed, it serves at the first call after the pause.
    host("down").refuse = undefined
    const back = await until("down to serve", () => run("list_sessions", { host: "down" }), (r) => r.isError !== true)
    assert.deepStrictEqual(structured(back).sessions, [])
  })

  it("the session ends with nothing in flight: not_connected and why; the next call starts a new one", async (t) => {
    const { host, ok, hostInfo } = await open(t.onTestFinished, ["alpha", "beta"])
    await host("alpha").drop()
    const info = await until(
      "alpha's session to end",
      () => hostInfo("alpha", "beta"),
      (entry) => entry.state !== "connected"
    )
    assert.strictEqual(info.state, "not_connected")
    assert.match(info.last_error as string, /^the session ended/u)
    const sessions = (await ok("list_sessions", { host: "alpha" })).sessions as Array<{ session_name: string }>
    assert.deepStrictEqual(sessions.map((session) => session.session_name), ["work"])
    assert.strictEqual(host("alpha").opened(), 2)
  })

  it("a quiet link is kept: the hub's pings hold the host's server past twice the link timeout", async (t) => {
    const { host, ok } = await open(t.onTestFinished, ["alpha"])
    const server = host("alpha").server()
    await holdsFor(
      (2 * linkTimeout + 1) * 1000,
      "alpha's server keeps serving without a call",
      () => host("alpha").server() === server && !server!.stderr().includes("no message from the hub")
    )
    await ok("list_sessions", { host: "alpha" })
    assert.strictEqual(host("alpha").opened(), 1)
  })

  it("calls in flight when the session drops: a read is sent again; wait_for_text and a change never", async (t) => {
    const { host, run, paneOf } = await open(t.onTestFinished, ["alpha"])
    const pane = await paneOf("alpha")
    // alpha's server hears nothing: the calls are in flight when the session goes.
    host("alpha").partition()
    const read = run("list_sessions", { host: "alpha" })
    const write = run("create_window", { host: "alpha", session_name: "work", window_name: "maybe" })
    const waited = run("wait_for_text", { host: "alpha", pane_id: pane, patterns: ["never-printed"], timeout: 20 })
    await until("the three calls to wait on their way", () => host("alpha").waiting(), (count) => count >= 3)
    await host("alpha").drop()
    const [readAnswer, writeAnswer, waitAnswer] = await Promise.all([read, write, waited])
    assert.isFalse(readAnswer.isError === true, textOf(readAnswer))
    assert.deepStrictEqual(
      (structured(readAnswer).sessions as Array<{ session_name: string }>).map((item) => item.session_name),
      ["work"]
    )
    assert.strictEqual(errorTag(writeAnswer), "OutcomeUnknown", textOf(writeAnswer))
    assert.match(textOf(writeAnswer), /^the outcome of create_window on host alpha is unknown: .*not sent again/u)
    assert.strictEqual(errorTag(waitAnswer), "OutcomeUnknown", textOf(waitAnswer))
    assert.match(textOf(waitAnswer), /^wait_for_text on host alpha ended without an answer: .*not sent again/u)
    assert.strictEqual(host("alpha").opened(), 2)
    assert.lengthOf(hostIntents(host("alpha"), "create_window"), 0)
    assert.lengthOf(hostIntents(host("alpha"), "wait_for_text"), 0)
  })

  it("a run whose link is lost answers OutcomeUnknown naming it; another host serves; resume answers", async (t) => {
    const { host, run, paneOf, startRun, typed } = await open(t.onTestFinished, ["alpha", "beta"])
    const pane = await paneOf("beta")
    const { answer, runId } = startRun("beta", pane, "sleep 1; echo late-beta")
    const id = await runId
    await typed("beta", pane, "late-beta")
    await host("beta").drop()
    host("beta").refuse = "ssh: connect to host beta.example port 22: Connection refused"
    const [lost, other] = await Promise.all([answer, run("list_sessions", { host: "alpha" })])
    assert.strictEqual(errorTag(lost), "OutcomeUnknown", textOf(lost))
    assert.include(textOf(lost), "the outcome of run_shell_command on host beta is unknown")
    assert.include(textOf(lost), `resume ${id}`)
    assert.isFalse(other.isError === true, textOf(other))
    assert.strictEqual(errorTag(await run("list_sessions", { host: "beta" })), "HostUnreachable")
    host("beta").refuse = undefined
    const back = await until(
      "beta to resume the run",
      () => run("run_shell_command", { host: "beta", pane_id: pane, resume: id }),
      (result) => errorTag(result) !== "HostUnreachable"
    )
    assert.deepInclude(structured(back), { output: "late-beta" }, textOf(back))
  })

  it("a partition: the host's server stops, its run not collected; the hub's side ends; resume answers", async (t) => {
    const { host, run, paneOf, startRun, typed } = await open(t.onTestFinished, ["alpha"])
    const pane = await paneOf("alpha")
    const server = host("alpha").server()!
    const { answer, runId } = startRun("alpha", pane, "sleep 1; echo after-partition")
    const id = await runId
    await typed("alpha", pane, "after-partition")
    host("alpha").partition()
    const lost = await answer
    assert.strictEqual(errorTag(lost), "OutcomeUnknown", textOf(lost))
    assert.include(textOf(lost), `resume ${id}`)
    await until("alpha's server to stop", () => server.stderr(), (text) => text.includes("no message from the hub"))
    const back = await until(
      "alpha to resume the run",
      () => run("run_shell_command", { host: "alpha", pane_id: pane, resume: id }),
      (result) => errorTag(result) !== "HostUnreachable"
    )
    assert.deepInclude(structured(back), { output: "after-partition", exit_status: 0 }, textOf(back))
  })

  it("an answer lost after the host collected the run: OutcomeUnknown, then resume says RunCollected", async (t) => {
    const { host, run, paneOf, startRun } = await open(t.onTestFinished, ["alpha"])
    const pane = await paneOf("alpha")
    // The run's result leaves the host and is lost on the way; the link then dies.
    let lostResult = false
    host("alpha").rewrite = (message) => {
      if (!("result" in message && "structuredContent" in message.result)) return message
      lostResult = true
      return undefined
    }
    const { answer, runId } = startRun("alpha", pane, "echo collected-there")
    const id = await runId
    await until("the run's result to be lost", () => lostResult, (lost) => lost)
    host("alpha").rewrite = undefined
    await host("alpha").drop()
    assert.strictEqual(errorTag(await answer), "OutcomeUnknown")
    const again = await run("run_shell_command", { host: "alpha", pane_id: pane, resume: id })
    assert.strictEqual(errorTag(again), "RunCollected", textOf(again))
  })

  it("an answer that is not a tool result or does not fit: HostAnswerRefused; the session goes on", async (t) => {
    const { host, run } = await open(t.onTestFinished, ["alpha"])
    host("alpha").rewrite = (message) =>
      "result" in message && "structuredContent" in message.result
        ? { ...message, result: { ...message.result, structuredContent: { sessions: "not a list" } } }
        : message
    const refused = await run("list_sessions", { host: "alpha" })
    assert.strictEqual(errorTag(refused), "HostAnswerRefused", JSON.stringify(refused))
    assert.match(textOf(refused), /^host alpha's answer to list_sessions was refused, not passed on: it does not fit/u)
    host("alpha").rewrite = (message) =>
      "result" in message && "structuredContent" in message.result
        ? { ...message, result: { content: "no list" } } as never
        : message
    const malformed = await run("list_sessions", { host: "alpha" })
    assert.strictEqual(errorTag(malformed), "HostAnswerRefused", textOf(malformed))
    host("alpha").rewrite = undefined
    assert.isFalse((await run("list_sessions", { host: "alpha" })).isError === true)
    assert.strictEqual(host("alpha").opened(), 1)
  })

  it("the host's tmux server was killed: its old IDs answer the host's own error after 'on host NAME:'", async (t) => {
    const { host, run, paneOf } = await open(t.onTestFinished, ["alpha"])
    const pane = await paneOf("alpha")
    host("alpha").world.tmux("libtmux-mcp", "kill-server")
    const gone = await run("capture_pane", { host: "alpha", pane_id: pane })
    assert.isTrue(gone.isError)
    assert.match(textOf(gone), /^on host alpha: /u)
  })

  it("a host whose server selects fewer tools: HostToolMissing with its version; narrowed: nothing sent", async (t) => {
    const { host, run } = await open(t.onTestFinished, ["alpha", "beta"], ["--host-toolsets", "beta=inspect"], [
      "alpha"
    ])
    host("alpha").env = { LIBTMUX_TOOLSETS: "inspect" }
    await host("alpha").drop()
    const missing = await run("create_window", { host: "alpha", session_name: "work", window_name: "w" })
    assert.strictEqual(errorTag(missing), "HostToolMissing", textOf(missing))
    assert.match(textOf(missing), /^host alpha \(libtmux-mcp \S+\) does not offer create_window/u)
    const narrowed = await run("create_window", { host: "beta", session_name: "work", window_name: "w" })
    assert.strictEqual(errorTag(narrowed), "HostToolMissing", textOf(narrowed))
    assert.include(textOf(narrowed), "nothing was sent there")
    assert.lengthOf(hostIntents(host("beta"), "create_window"), 0)
  })
})
