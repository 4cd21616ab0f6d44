/**
 * The one control-mode connection (`tmux -C`, platform/TmuxControl.ts and ControlLink.ts) end to end:
 * its client and hidden session are there on the socket but no tool shows or takes them; the tmux
 * server still ends with the user's last session; the hidden session goes with the server process;
 * a connection killed from outside comes back; a server killed under a burst answers every call;
 * two instances share a socket; a user configuration does not turn it against the user's sessions;
 * a blocking wait-for does not stall it; concurrent callers each get their own pane's answers.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { spawn, spawnSync } from "node:child_process"
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { controlSessionName, controlSessionPrefix } from "../../src/domain/protocolNames.ts"
import { thisTag } from "../../src/platform/thisInstance.ts"
import { harness } from "../support/harness.ts"
import { call, type Connected, structured, textOf } from "../support/mcp.ts"
import { stillPending, until, waiterOf } from "../support/poll.ts"
import { loggingTmux, type TmuxWorld } from "../support/tmux.ts"

// The connection's behaviour is the same in process; the bin where the server process is the point
// (it is SIGKILLed, its tmux wait-for child is looked for) and for two instances on one socket.
const h = harness("control-conn", { inProcess: true })
const bin = harness("control-conn")
const socket = "libtmux-mcp"
// The connection is this file's subject: its servers take the default transport even in a run that
// sets another for the rest (LIBTMUX_TEST_TRANSPORT, test/support/mcp.ts), unless a test names one.
const allToolsets = { LIBTMUX_TOOLSETS: "inspect,manage,execute,teardown", LIBTMUX_TRANSPORT: "auto" }

/** A raw tmux command on the world's socket: its status and both outputs (no throw). */
const raw = (world: TmuxWorld, ...args: ReadonlyArray<string>) => {
  const done = spawnSync("tmux", ["-L", socket, "-f", "/dev/null", ...args], {
    env: world.env,
    encoding: "utf8"
  })
  return { ok: done.status === 0, stdout: done.stdout ?? "", stderr: done.stderr ?? "" }
}

const lines = (text: string) => text.split("\n").filter((line) => line !== "")

/** Every session on the socket as tmux lists it: `$id name`. */
const rawSessions = (world: TmuxWorld) =>
  lines(raw(world, "list-sessions", "-F", "#{session_id} #{session_name}").stdout)
const hiddenSessions = (world: TmuxWorld) =>
  rawSessions(world).filter((row) => row.split(" ")[1]!.startsWith(controlSessionPrefix))
/** The clients of the socket: flags and the session each is attached to. */
const clients = (world: TmuxWorld) =>
  lines(raw(world, "list-clients", "-F", "#{client_flags}|#{session_name}|#{client_pid}").stdout).map((row) => {
    const [flags = "", session = "", pid = ""] = row.split("|")
    return { flags: flags.split(","), session, pid: Number(pid) }
  })
const controlClients = (world: TmuxWorld) => clients(world).filter((client) => client.flags.includes("control-mode"))

/** The server is gone: tmux says so. */
const serverGone = (world: TmuxWorld) =>
  until(
    "the tmux server to exit",
    () => raw(world, "list-sessions"),
    (done) => !done.ok && /no server running|error connecting/u.test(done.stderr),
    { timeoutMs: 5_000 }
  )

const errorTag = (result: CallToolResult) => result._meta?.["com.git-pull.libtmux-mcp/error"]

/** Calls list_sessions until the world shows a connection: one hidden session, one control client on it. */
const connection = async (world: TmuxWorld, c: Connected, timeoutMs = 5_000) => {
  const seen = await until(
    "a control connection with its hidden session",
    async () => {
      structured(await call(c, "list_sessions"))
      return {
        hidden: hiddenSessions(world),
        control: controlClients(world).filter((client) => client.session.startsWith(controlSessionPrefix))
      }
    },
    ({ hidden, control }) => hidden.length === 1 && control.length === 1,
    { timeoutMs, intervalMs: 100 }
  )
  const [id, name] = seen.hidden[0]!.split(" ") as [string, string]
  assert.strictEqual(seen.control[0]!.session, name, "the control client is attached to the hidden session")
  return { id, name, clientPid: seen.control[0]!.pid }
}

/** The hidden panes' processes (`sh -c`, a script ending in its kill-session) under `ancestor`. */
const hiddenPanesUnder = (ancestor: number): Array<number> => {
  const parentOf = (pid: number): number | undefined => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
    } catch {
      return undefined
    }
  }
  return readdirSync("/proc").filter((name) => /^\d+$/u.test(name)).map(Number).filter((pid) => {
    let args: Array<string>
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter((arg) => arg !== "")
    } catch {
      return false
    }
    if (args[0] !== "sh" || args[1] !== "-c" || !(args[2] ?? "").includes("kill-session")) return false
    for (let at = parentOf(pid); at !== undefined && at > 1; at = parentOf(at)) if (at === ancestor) return true
    return false
  })
}

/** How long a slow connection's control client is held back (`loggingTmux`'s `holdControlMs`). */
const slowControlMs = 1_500

const open = async (env: Record<string, string | undefined> = {}, on = h) => {
  const world = on.world()
  const c = await on.connect(world, { ...allToolsets, ...env })
  return { world, c }
}

describe("the control connection", () => {
  it("is one control client on a hidden session that no tool lists, names or targets", async () => {
    const { world, c } = await open()
    const created = structured(await call(c, "create_session", { session_name: "work" }))
    const hidden = await connection(world, c)
    assert.lengthOf(controlClients(world), 1)
    assert.lengthOf(clients(world), 1, "the only client of the server is the control client")
    assert.sameMembers(rawSessions(world).map((row) => row.split(" ")[1]), ["work", hidden.name])
    // Raw tmux sees the hidden session's window and pane; no tool does.
    assert.lengthOf(lines(raw(world, "list-panes", "-a", "-F", "#{pane_id}").stdout), 2)
    const hiddenPane = raw(world, "list-panes", "-t", hidden.id, "-F", "#{pane_id}").stdout.trim()
    const hiddenWindow = raw(world, "list-windows", "-t", hidden.id, "-F", "#{window_id}").stdout.trim()
    assert.deepStrictEqual(structured(await call(c, "list_sessions")).sessions.map((s: any) => s.session_name), [
      "work"
    ])
    assert.deepStrictEqual(structured(await call(c, "list_windows")).windows.map((w: any) => w.session_name), ["work"])
    assert.deepStrictEqual(structured(await call(c, "list_panes")).panes.map((p: any) => p.pane_id), [created.pane_id])
    assert.strictEqual(structured(await call(c, "get_server_info")).session_count, 1)

    // A name with the prefix is refused, naming it.
    for (
      const [tool, args] of [
        ["create_session", { session_name: `${controlSessionPrefix}mine` }],
        ["rename_session", { session_name: "work", new_name: `${controlSessionPrefix}mine` }],
        ["kill_session", { session_name: hidden.name }]
      ] as const
    ) {
      const refused = await call(c, tool, args)
      assert.isTrue(refused.isError, `${tool} ${JSON.stringify(args)}: ${textOf(refused)}`)
      assert.include(textOf(refused), controlSessionPrefix, tool)
    }
    // By ID it is not found, as if it were not there.
    for (
      const [tool, args, tag] of [
        ["kill_session", { session_id: hidden.id }, "SessionNotFound"],
        ["list_windows", { session_id: hidden.id }, "SessionNotFound"],
        ["get_window_info", { window_id: hiddenWindow }, "WindowNotFound"],
        ["kill_window", { window_id: hiddenWindow }, "WindowNotFound"],
        ["get_pane_info", { pane_id: hiddenPane }, "PaneNotFound"],
        ["kill_pane", { pane_id: hiddenPane }, "PaneNotFound"]
      ] as const
    ) {
      const refused = await call(c, tool, args)
      assert.isTrue(refused.isError, `${tool} on the hidden session's ${JSON.stringify(args)}: ${textOf(refused)}`)
      assert.strictEqual(errorTag(refused), tag, `${tool}: ${textOf(refused)}`)
      assert.notInclude(textOf(refused), controlSessionPrefix, "the error lists only the user's objects")
    }
    assert.lengthOf(controlClients(world), 1)
    assert.sameMembers(rawSessions(world).map((row) => row.split(" ")[1]), ["work", hidden.name], "all untouched")
    assert.lengthOf(lines(raw(world, "list-panes", "-a", "-F", "#{pane_id}").stdout), 2)
  })

  // A spawn instance keeps no connection and hears no notifications: it refuses another instance's
  // hidden pane all the same.
  for (const who of ["the instance itself", "a spawn instance on the same socket"] as const) {
    it(`refuses the hidden session's pane to every tool that takes a pane_id (${who})`, async () => {
      const { world, c: owner } = await open()
      structured(await call(owner, "create_session", { session_name: "work" }))
      const hidden = await connection(world, owner)
      const c = who === "the instance itself"
        ? owner
        : await h.connect(world, { ...allToolsets, LIBTMUX_TRANSPORT: "spawn" })
      const pane = raw(world, "list-panes", "-t", hidden.id, "-F", "#{pane_id}").stdout.trim()
      const calls = [
        ["capture_pane", { pane_id: pane }],
        ["snapshot_pane", { pane_id: pane }],
        ["send_keys", { pane_id: pane, keys: "typed-into-hidden" }],
        ["paste_text", { pane_id: pane, text: "pasted-into-hidden" }],
        ["set_pane_title", { pane_id: pane, title: "retitled" }],
        ["select_pane", { pane_id: pane }],
        ["resize_pane", { pane_id: pane, width: 20 }],
        ["enter_copy_mode", { pane_id: pane }],
        ["clear_pane_scrollback", { pane_id: pane }],
        ["split_window", { pane_id: pane }]
      ] as const
      const accepted: Array<string> = []
      for (const [tool, args] of calls) {
        const result = await call(c, tool, args)
        if (result.isError !== true || errorTag(result) !== "PaneNotFound") {
          accepted.push(`${tool}: ${result.isError === true ? errorTag(result) : "ok"} ${textOf(result).slice(0, 120)}`)
        }
      }
      assert.deepStrictEqual(accepted, [], `tools that took the hidden pane ${pane} as a target`)
      assert.deepStrictEqual(
        lines(raw(world, "list-panes", "-t", hidden.id, "-F", "#{pane_id}").stdout),
        [pane],
        "nothing was added to the hidden session"
      )
    })
  }

  for (const transport of ["auto", "spawn"] as const) {
    it(`lets the tmux server end with the user's last session (LIBTMUX_TRANSPORT=${transport})`, async () => {
      const { world, c } = await open({ LIBTMUX_TRANSPORT: transport })
      const created = structured(await call(c, "create_session", { session_name: "only" }))
      if (transport === "auto") await connection(world, c)
      else assert.deepStrictEqual(structured(await call(c, "list_sessions")).sessions.length, 1)
      structured(await call(c, "kill_session", { session_id: created.session_id }))
      await serverGone(world)
      // The instance still answers, with no server.
      assert.deepStrictEqual(structured(await call(c, "list_sessions")), { sessions: [] })
      assert.isFalse(raw(world, "list-sessions").ok, "a read starts no server")
    })
  }

  it("goes with the MCP server process when it is killed: no hidden session, client or pane is left", async () => {
    const { world, c } = await open({}, bin)
    structured(await call(c, "create_session", { session_name: "stays" }))
    await connection(world, c)
    const tmuxPid = Number(raw(world, "display-message", "-p", "#{pid}").stdout.trim())
    assert.lengthOf(hiddenPanesUnder(tmuxPid), 1, "the hidden pane's process runs under the tmux server")
    const pid = c.pid?.()
    assert.isNumber(pid)
    process.kill(pid!, "SIGKILL")
    await until(
      "the hidden session, its control client and its pane's process to go (its pane looks every 2 s)",
      () => ({ hidden: hiddenSessions(world), clients: clients(world), panes: hiddenPanesUnder(tmuxPid) }),
      (left) => left.hidden.length === 0 && left.clients.length === 0 && left.panes.length === 0,
      { timeoutMs: 8_000 }
    )
    assert.deepStrictEqual(rawSessions(world).map((row) => row.split(" ")[1]), ["stays"], "the user's session stays")
  })

  it("comes back after its hidden session is killed from outside, alone or with kill-session -a", async () => {
    const { world, c } = await open()
    const created = structured(await call(c, "create_session", { session_name: "main" }))
    const first = await connection(world, c)
    assert.isTrue(raw(world, "kill-session", "-t", first.id).ok)
    const answers = async () => {
      assert.deepStrictEqual(structured(await call(c, "list_sessions")).sessions.map((s: any) => s.session_name), [
        "main"
      ])
      assert.isString(structured(await call(c, "capture_pane", { pane_id: created.pane_id })).content)
    }
    await answers()
    // A reconnect waits a second after a close.
    const second = await connection(world, c, 3_000)
    assert.notStrictEqual(second.id, first.id, "a new hidden session")
    assert.notStrictEqual(second.clientPid, first.clientPid, "a new control client")

    assert.isTrue(raw(world, "kill-session", "-a", "-t", "main").ok)
    assert.deepStrictEqual(hiddenSessions(world), [], "kill-session -a took the hidden session too")
    await answers()
    const third = await connection(world, c, 3_000)
    assert.notStrictEqual(third.id, second.id)
    assert.deepStrictEqual(rawSessions(world).map((row) => row.split(" ")[1]).sort(), ["main", third.name].sort())
  })

  it("answers every call of a burst when the tmux server is killed in its middle, and serves after", async () => {
    const { world, c } = await open()
    const created = structured(await call(c, "create_session", { session_name: "burst" }))
    // Captures of a long history keep the burst in flight long enough for the kill to land in it.
    structured(await call(c, "send_keys", { pane_id: created.pane_id, keys: "seq 1 3000" }))
    await until(
      "the history to fill",
      async () => structured(await call(c, "capture_pane", { pane_id: created.pane_id })).content as string,
      (text) => text.includes("\n3000")
    )
    await connection(world, c)
    const logged = (event: string) => c.stderr().split(`"event":"${event}"`).length - 1
    const outcomesBefore = logged("tool_call_outcome")
    // Ten callers, five calls each, one after another: calls are in flight before, at and after the kill.
    const callers = Array.from({ length: 10 }, async (_, worker) => {
      const results: Array<CallToolResult> = []
      for (let i = 0; i < 5; i++) {
        results.push(
          (worker + i) % 2 === 0
            ? await call(c, "list_panes", {}, { timeout: 20_000 })
            : await call(c, "capture_pane", { pane_id: created.pane_id, start: -3000 }, { timeout: 20_000 })
        )
      }
      return results
    })
    await until("the first answers of the burst", () => logged("tool_call_outcome") - outcomesBefore, (n) => n >= 5, {
      intervalMs: 1
    })
    const answeredBeforeKill = logged("tool_call_outcome") - outcomesBefore
    assert.isTrue(raw(world, "kill-server").ok)
    const results = (await Promise.all(callers)).flat()
    assert.lengthOf(results, 50)
    assert.isBelow(answeredBeforeKill, 50, "the kill came in the middle of the burst")
    const outcomes = results.map((result) => result.isError === true ? String(errorTag(result)) : "ok")
    const clean = new Set(["ok", "ServerNotRunning", "PaneNotFound", "TmuxAnswerLost"])
    const unclean = results.flatMap((result, i) =>
      clean.has(outcomes[i]!) && textOf(result) !== "" ? [] : [`${errorTag(result)}: ${textOf(result)}`]
    )
    assert.deepStrictEqual(unclean, [], `outcomes: ${JSON.stringify(outcomes)}`)
    assert.isTrue(outcomes.includes("PaneNotFound"), `some capture saw the server go: ${outcomes}`)
    await serverGone(world)
    // The instance serves on: a new server, and a new connection to it.
    const again = structured(await call(c, "create_session", { session_name: "again" }))
    assert.deepStrictEqual(structured(await call(c, "list_sessions")).sessions.map((s: any) => s.session_name), [
      "again"
    ])
    assert.isString(structured(await call(c, "capture_pane", { pane_id: again.pane_id })).content)
    await connection(world, c, 3_000)
  })

  it("has two instances on one socket each keep a connection, neither showing the other's", async () => {
    const world = bin.world()
    const one = await bin.connect(world, allToolsets)
    const a = structured(await call(one, "create_session", { session_name: "a" }))
    const two = await bin.connect(world, allToolsets)
    const b = structured(await call(two, "create_session", { session_name: "b" }))
    await until("two control clients, each on its own hidden session", async () => {
      structured(await call(one, "list_panes"))
      structured(await call(two, "list_panes"))
      return { control: controlClients(world), hidden: hiddenSessions(world) }
    }, ({ control, hidden }) =>
      control.length === 2 && hidden.length === 2 &&
      new Set(control.map((client) => client.session)).size === 2, { timeoutMs: 5_000, intervalMs: 100 })
    for (const c of [one, two]) {
      assert.deepStrictEqual(
        structured(await call(c, "list_sessions")).sessions.map((s: any) => s.session_name).sort(),
        ["a", "b"]
      )
      assert.deepStrictEqual(
        structured(await call(c, "list_panes")).panes.map((p: any) => p.pane_id).sort(),
        [a.pane_id, b.pane_id].sort()
      )
      assert.strictEqual(structured(await call(c, "get_server_info")).session_count, 2)
    }
    structured(await call(one, "kill_session", { session_id: a.session_id }))
    structured(await call(one, "kill_session", { session_id: b.session_id }))
    await serverGone(world)
  })

  it("ends the server with the last session even when another instance's connection is down", async () => {
    const world = bin.world()
    const one = await bin.connect(world, allToolsets)
    const a = structured(await call(one, "create_session", { session_name: "a" }))
    const first = await connection(world, one)
    const two = await bin.connect(world, allToolsets)
    await until(
      "the second instance's connection",
      async () => {
        structured(await call(two, "list_panes"))
        return { control: controlClients(world), hidden: hiddenSessions(world) }
      },
      ({ control, hidden }) => control.length === 2 && hidden.length === 2,
      { timeoutMs: 5_000, intervalMs: 100 }
    )
    // The first instance's client is gone (killed from outside); its session stays for its next call.
    process.kill(first.clientPid, "SIGKILL")
    await until("the first instance's client to go", () => controlClients(world), (control) => control.length === 1)
    assert.lengthOf(hiddenSessions(world), 2)
    structured(await call(two, "kill_session", { session_id: a.session_id }))
    await serverGone(world)
  })

  describe("under a configuration with destroy-unattached on, detach-on-destroy off and a session-created hook", () => {
    const userConfig = (world: TmuxWorld) => {
      const config = join(world.dir, "user tmux.conf")
      writeFileSync(
        config,
        [
          "set -g destroy-unattached on",
          "set -g detach-on-destroy off",
          "set-hook -g session-created 'set -g @created_count 1'",
          ""
        ].join("\n")
      )
      return config
    }

    it("answers create_session, and no connection keeps the server tmux then empties", async () => {
      // tmux 3.3a destroys every unattached session of a destroy-unattached server as soon as a
      // client goes: the session create_session made goes with the client that made it, whatever the
      // transport. The server then ends, as with spawned clients: the connection does not keep it.
      const world = h.world()
      const config = userConfig(world)
      const c = await h.connect(world, { ...allToolsets, LIBTMUX_TMUX_CONFIG: config })
      const created = structured(await call(c, "create_session", { session_name: "mine" }))
      assert.isTrue(created.server_started)
      assert.include(created.server_provenance, config, "the server started with the user's configuration")
      await serverGone(world)
      assert.deepStrictEqual(structured(await call(c, "list_sessions")), { sessions: [] })
    })

    for (const transport of ["auto", "spawn"] as const) {
      it(`keeps a person's attached session, the server ends with it (LIBTMUX_TRANSPORT=${transport})`, async () => {
        const world = h.world()
        const config = userConfig(world)
        // A person's terminal on the session, the server started with their configuration: attached,
        // so their own destroy-unattached leaves it.
        const { env } = world
        const person = spawn("tmux", ["-L", socket, "-f", config, "-C", "new-session", "-s", "mine"], {
          env,
          stdio: ["pipe", "pipe", "pipe"]
        })
        let seen = ""
        person.stdout.on("data", (chunk: Buffer) => (seen += chunk.toString("utf8")))
        const personExited = new Promise<number | null>((resolve) => person.on("close", resolve))
        h.defer(() => person.kill("SIGKILL"))
        await until(
          "the person's session",
          () => rawSessions(world).map((row) => row.split(" ")[1]),
          (names) => names.includes("mine")
        )
        assert.isTrue(raw(world, "set-option", "-gu", "@created_count").ok)
        const c = await h.connect(world, { ...allToolsets, LIBTMUX_TMUX_CONFIG: config, LIBTMUX_TRANSPORT: transport })
        const mine = structured(await call(c, "list_sessions")).sessions
        assert.deepStrictEqual(mine.map((s: any) => s.session_name), ["mine"])
        if (transport === "auto") {
          const first = await connection(world, c)
          assert.strictEqual(raw(world, "show-options", "-gv", "@created_count").stdout.trim(), "1", "the hook ran")
          assert.strictEqual(structured(await call(c, "get_server_info")).session_count, 1)
          assert.lengthOf(structured(await call(c, "list_panes")).panes, 1)
          // Killed from outside, the connection's session goes alone: its client leaves, and does not
          // move onto the person's session (detach-on-destroy off is theirs, not the hidden session's).
          assert.isTrue(raw(world, "kill-session", "-t", first.id).ok)
          await until(
            "the killed connection's client to go",
            () => clients(world),
            (now) => now.every((client) => client.pid !== first.clientPid),
            { timeoutMs: 5_000 }
          )
          assert.deepStrictEqual(clients(world).map((client) => client.session), ["mine"], "only the person's client")
          const second = await connection(world, c, 3_000)
          assert.notStrictEqual(second.id, first.id)
          assert.sameMembers(clients(world).map((client) => client.session), ["mine", second.name])
        }
        assert.deepStrictEqual(structured(await call(c, "list_sessions")).sessions.map((s: any) => s.session_name), [
          "mine"
        ])
        // The person's last session killed: the server ends, and their client with it.
        structured(await call(c, "kill_session", { session_id: mine[0].session_id }))
        try {
          await serverGone(world)
        } catch (error) {
          throw new Error(
            `${String(error)}\nclients: ${JSON.stringify(clients(world))}\nsessions: ${
              JSON.stringify(rawSessions(world))
            }\nthe person's client saw: ${seen.split("\n").slice(-6).join(" | ")}`
          )
        }
        await personExited
        assert.include(seen, "%exit")
      })
    }
  })

  it("answers other calls while a blocking wait_for_channel waits", async () => {
    const { world, c } = await open({}, bin)
    structured(await call(c, "create_session", { session_name: "waits" }))
    await connection(world, c)
    const channel = "ctl_conn_test"
    const waiting = call(c, "wait_for_channel", { channel, timeout: 20 }, { timeout: 30_000 })
    const pending = stillPending(waiting)
    // The wait's client is there before the reads start.
    await waiterOf(c.pid?.(), channel)
    // Each read has 5 s (the request's own timeout): a read queued behind the wait would miss it.
    const reads = await Promise.all(
      Array.from({ length: 20 }, () => call(c, "list_panes", {}, { timeout: 5_000 }))
    )
    for (const read of reads) assert.lengthOf(structured(read).panes, 1)
    assert.isTrue(pending(), "the wait still waits")
    assert.isTrue(raw(world, "wait-for", "-S", channel).ok)
    const ended = structured(await waiting)
    assert.strictEqual(ended.outcome, "signalled")
    assert.isBelow(ended.elapsed_seconds, 20)
  })

  // tmux 3.3a's server crashes, and takes every session with it, when a control notification (a session
  // made, a buffer deleted, a window renamed) comes while a control client is still identifying itself
  // (tmux/tmux#4980). With the control client held back 1.5 s, neither the first call's forked
  // new-session nor the leftover sweep a second after startup may go before it has attached.
  it("sends nothing else to tmux while its connection opens", async () => {
    const world = h.world()
    world.tmux(socket, "new-session", "-d", "-s", "mine")
    const slow = loggingTmux(world, { holdControlMs: slowControlMs })
    const c = await h.connect(world, { ...allToolsets, LIBTMUX_TMUX_BIN: slow.wrapper })
    structured(await call(c, "create_session", { session_name: "work" }))
    const started = slow.started()
    const control = started.findIndex(({ args }) => args.includes(" -C "))
    assert.isAtLeast(control, 0, JSON.stringify(started))
    const meanwhile = started.slice(control + 1).filter(({ ms }) => ms < started[control]!.ms + slowControlMs)
    assert.deepStrictEqual(meanwhile, [], JSON.stringify(started))
    assert.isTrue(started.some(({ args }) => args.includes("new-session") && !args.includes(" -C ")))
  })

  // A SIGKILLed server's hidden session stays until its pane sees the server gone (within 2 s), and that
  // pane's kill-session is a notification that may come while the next server's connection identifies
  // itself. The next server removes it first. The dead instance here is this process's pid with another
  // start time: a pid reused.
  it("removes a dead instance's hidden session before it opens its own connection", async () => {
    const world = h.world()
    const started = Number(readFileSync(`/proc/${process.pid}/stat`, "utf8").split(") ")[1]!.split(" ")[19])
    const namespace = /\[([0-9]+)\]/u.exec(readlinkSync("/proc/self/ns/pid"))![1]!
    const dead = controlSessionName(`${process.pid}.${started - 1}.${namespace}`)
    world.tmux(socket, "new-session", "-d", "-s", dead, "sleep 600")
    world.tmux(socket, "new-session", "-d", "-s", "mine")
    const slow = loggingTmux(world, { holdControlMs: slowControlMs })
    const c = await h.connect(world, { ...allToolsets, LIBTMUX_TMUX_BIN: slow.wrapper })
    structured(await call(c, "list_sessions"))
    const seen = slow.started()
    const killed = seen.findIndex(({ args }) => args.includes(`kill-session -t =${dead}`))
    const control = seen.findIndex(({ args }) => args.includes(" -C "))
    assert.isAtLeast(killed, 0, JSON.stringify(seen))
    assert.isAbove(control, killed, JSON.stringify(seen))
    assert.deepStrictEqual(
      hiddenSessions(world).map((row) => row.split(" ")[1]),
      [controlSessionName(thisTag)]
    )
  })

  it("gives 8 concurrent callers typing and capturing in 8 panes each its own pane's text", async () => {
    const { world, c } = await open()
    const first = structured(await call(c, "create_session", { session_name: "eight" }))
    const panes: Array<string> = [first.pane_id]
    for (let i = 1; i < 8; i++) {
      panes.push(structured(await call(c, "create_window", { session_id: first.session_id })).pane_id)
    }
    await connection(world, c)
    const caller = async (pane: string, i: number) => {
      // The shell prints the word upper-cased: what the pane shows then is the command's output, not its echo.
      const word = `pane-word-${i}-${pane.slice(1)}`
      structured(await call(c, "send_keys", { pane_id: pane, keys: `echo ${word} | tr a-z A-Z` }))
      const content = await until(
        `${word} upper-cased in ${pane}`,
        async () => structured(await call(c, "capture_pane", { pane_id: pane })).content as string,
        (text) => text.includes(word.toUpperCase()),
        { timeoutMs: 10_000, intervalMs: 50 }
      )
      for (let other = 0; other < 8; other++) {
        if (other !== i) assert.notInclude(content, `PANE-WORD-${other}-`, `${pane} shows only its own`)
      }
      return content
    }
    const captured = await Promise.all(panes.map(caller))
    assert.lengthOf(captured, 8)
    assert.lengthOf(controlClients(world), 1, "one connection carried them all")
  })
})
