/**
 * The hierarchy tools end to end against a real tmux: absent-server semantics, creation on the
 * pinned socket with the shipped configuration, exact targeting, and errors that name what exists.
 */
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { call, structured, textOf } from "../support/mcp.ts"
import { paneShows, type TmuxWorld } from "../support/tmux.ts"

const h = harness("hierarchy", { inProcess: true })
let world: TmuxWorld

const open = (env: Record<string, string | undefined> = {}) => h.connect(world, env)

const fresh = (env: Record<string, string | undefined> = {}) => {
  world = h.world()
  return open(env)
}

describe("with no tmux server on the socket", () => {
  it(
    "answers plural reads with empty lists, singular reads " +
      "with typed not-found errors, and starts no server",
    async () => {
      const c = await fresh()
      assert.deepStrictEqual(structured(await call(c, "list_sessions")), { sessions: [] })
      assert.deepStrictEqual(structured(await call(c, "list_windows")), { windows: [] })
      assert.deepStrictEqual(structured(await call(c, "list_panes")), { panes: [] })
      const info = structured(await call(c, "get_server_info"))
      assert.strictEqual(info.running, false)
      assert.strictEqual(info.socket, "name:libtmux-mcp")
      assert.strictEqual(info.socket_path, world.socketPath("libtmux-mcp"))
      for (
        const [tool, args, tag] of [
          ["get_session_info", { session_name: "work" }, "SessionNotFound"],
          ["get_window_info", { window_id: "@1" }, "WindowNotFound"],
          ["get_pane_info", { pane_id: "%0" }, "PaneNotFound"],
          ["kill_session", { session_id: "$0" }, "SessionNotFound"]
        ] as const
      ) {
        const result = await call(c, tool, args)
        assert.isTrue(result.isError, tool)
        assert.strictEqual(result._meta?.["com.git-pull.libtmux-mcp/error"], tag)
        assert.include(textOf(result), "no tmux server is running on socket name:libtmux-mcp")
      }
      assert.isUndefined(world.tryTmux("libtmux-mcp", "list-sessions"))
    }
  )
})

describe("create_session", () => {
  it("starts the pinned server with the shipped minimal configuration, returns IDs the reads agree with", async () => {
    const c = await fresh()
    const created = structured(await call(c, "create_session", { session_name: "work", window_name: "editor" }))
    assert.match(created.session_id, /^\$\d+$/)
    assert.match(created.window_id, /^@\d+$/)
    assert.match(created.pane_id, /^%\d+$/)
    assert.strictEqual(created.session_name, "work")
    assert.include(world.tmux("libtmux-mcp", "show", "-sv", "@libtmux-mcp-started-by"), "libtmux-mcp minimal")
    assert.strictEqual(world.tmux("libtmux-mcp", "show", "-gv", "history-limit").trim(), "50000")

    const sessions = structured(await call(c, "list_sessions")).sessions
    assert.deepStrictEqual(sessions.map((s: any) => [s.session_id, s.session_name, s.session_windows]), [[
      created.session_id,
      "work",
      1
    ]])
    assert.deepStrictEqual(
      structured(await call(c, "get_session_info", { session_id: created.session_id })).session_name,
      "work"
    )
    const window = structured(await call(c, "get_window_info", { session_name: "work", window_index: 0 }))
    assert.strictEqual(window.window_id, created.window_id)
    assert.strictEqual(window.window_name, "editor")
    const panes = structured(await call(c, "list_panes", { window_id: created.window_id })).panes
    assert.deepStrictEqual(panes.map((p: any) => p.pane_id), [created.pane_id])
    assert.strictEqual(panes[0].is_caller, false)
    const pane = structured(await call(c, "get_pane_info", { pane_id: created.pane_id }))
    assert.strictEqual(pane.session_name, "work")
    assert.isAbove(pane.pane_pid, 0)
    const server = structured(await call(c, "get_server_info"))
    assert.strictEqual(server.running, true)
    assert.strictEqual(server.session_count, 1)
    assert.match(server.version, /^\d/)
    const audit = c.stderr().split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line))
    const intent = audit.find((event) => event.event === "tool_call_intent" && event.tool === "create_session")
    assert.isDefined(intent.request_id)
    const outcome = audit.find((event) => event.event === "tool_call_outcome" && event.call === intent.call)
    assert.deepInclude(outcome, { tool: "create_session", outcome: "ok" })
    assert.isNumber(outcome.duration_ms)
  })

  it("starts in the given directory without passing it through tmux formats", async () => {
    const c = await fresh()
    const dir = join(world.dir, "project dir")
    mkdirSync(dir)
    const created = structured(await call(c, "create_session", { start_directory: dir }))
    // The shell reports its directory once it has started.
    await paneShows(world, created.pane_id, "#{pane_current_path}", (path) => path === dir)
  })

  it("refuses a relative, missing or non-directory start_directory before touching tmux", async () => {
    const c = await fresh()
    for (const start_directory of ["relative/dir", join(world.dir, "missing"), "/etc/hostname"]) {
      const result = await call(c, "create_session", { start_directory })
      assert.isTrue(result.isError, start_directory)
      assert.include(textOf(result), "start_directory")
    }
    assert.isUndefined(world.tryTmux("libtmux-mcp", "list-sessions"))
  })

  it("refuses a duplicate session name and names the conflict", async () => {
    const c = await fresh()
    structured(await call(c, "create_session", { session_name: "dup" }))
    const again = await call(c, "create_session", { session_name: "dup" })
    assert.isTrue(again.isError)
    assert.strictEqual(again._meta?.["com.git-pull.libtmux-mcp/error"], "SessionExists")
  })

  it("rejects names tmux would rewrite or read as IDs, naming the rule", async () => {
    const c = await fresh()
    for (
      const [session_name, rule] of [["a.b", "'.' or ':'"], ["a:b", "'.' or ':'"], ["$1", "'$'"], ["%3", "'$'"], [
        "",
        "empty"
      ], ["tab\there", "control"]] as const
    ) {
      const result = await call(c, "create_session", { session_name })
      assert.isTrue(result.isError, session_name)
      assert.strictEqual(result._meta?.["com.git-pull.libtmux-mcp/error"], "InputInvalid")
      assert.include(textOf(result), rule)
    }
    assert.isUndefined(world.tryTmux("libtmux-mcp", "list-sessions"))
  })
})

describe("exact targeting", () => {
  it("matches names exactly: killing foo leaves foobar, and a prefix matches nothing", async () => {
    const c = await fresh()
    structured(await call(c, "create_session", { session_name: "foobar" }))
    structured(await call(c, "create_session", { session_name: "foo" }))
    assert.strictEqual(structured(await call(c, "get_session_info", { session_name: "foo" })).session_name, "foo")
    const prefix = await call(c, "get_session_info", { session_name: "fo" })
    assert.isTrue(prefix.isError)
    assert.include(textOf(prefix), `"foo"`)
    assert.include(textOf(prefix), `"foobar"`)
    assert.deepStrictEqual(structured(await call(c, "kill_session", { session_name: "foo" })).session_name, "foo")
    const left = structured(await call(c, "list_sessions")).sessions.map((s: any) => s.session_name)
    assert.deepStrictEqual(left, ["foobar"])
  })

  it("requires exactly one of session_id and session_name, and never falls back to the first session", async () => {
    const c = await fresh()
    structured(await call(c, "create_session", { session_name: "only" }))
    for (const args of [{}, { session_id: "$0", session_name: "only" }]) {
      for (const tool of ["get_session_info", "kill_session"]) {
        const result = await call(c, tool, args)
        assert.isTrue(result.isError, `${tool} ${JSON.stringify(args)}`)
        assert.include(textOf(result), "session_id or session_name")
      }
    }
    assert.strictEqual(structured(await call(c, "list_sessions")).sessions.length, 1)
  })

  it("rejects unknown properties and wrong types with a message naming the field", async () => {
    const c = await fresh()
    const extra = await call(c, "list_sessions", { session: "x" })
    assert.isTrue(extra.isError)
    assert.include(textOf(extra), "session")
    const wrong = await call(c, "get_pane_info", { pane_id: 3 })
    assert.isTrue(wrong.isError)
    assert.include(textOf(wrong), "pane_id")
    const shape = await call(c, "get_pane_info", { pane_id: "3" })
    assert.isTrue(shape.isError)
    assert.include(textOf(shape), "pane_id")
  })
})

describe("kill_session self-kill guard", () => {
  it("refuses the session containing this server's own pane on the pinned socket", async () => {
    world = h.world()
    world.tmux("libtmux-mcp", "new-session", "-d", "-s", "home")
    world.tmux("libtmux-mcp", "new-session", "-d", "-s", "other")
    const pane = world.tmux("libtmux-mcp", "list-panes", "-t", "=home", "-F", "#{pane_id}").trim()
    const c = await open({
      TMUX: `${world.socketPath("libtmux-mcp")},1,0`,
      TMUX_PANE: pane,
      LIBTMUX_TOOLSETS: "inspect,teardown"
    })
    const refused = await call(c, "kill_session", { session_name: "home" })
    assert.isTrue(refused.isError)
    assert.strictEqual(refused._meta?.["com.git-pull.libtmux-mcp/error"], "SelfKillRefused")
    assert.include(textOf(refused), pane)
    const panes = structured(await call(c, "list_panes", { session_name: "home" })).panes
    assert.strictEqual(panes[0].is_caller, true)
    structured(await call(c, "kill_session", { session_name: "other" }))
    assert.deepStrictEqual(structured(await call(c, "list_sessions")).sessions.map((s: any) => s.session_name), [
      "home"
    ])
  })

  it("does not guard a pane of the same ID on another socket", async () => {
    world = h.world()
    world.tmux("elsewhere", "new-session", "-d", "-s", "mine")
    const c = await open({
      TMUX: `${world.socketPath("elsewhere")},1,0`,
      TMUX_PANE: "%0",
      LIBTMUX_TOOLSETS: "inspect,execute,teardown"
    })
    const created = structured(await call(c, "create_session", { session_name: "agent" }))
    assert.strictEqual(created.pane_id, "%0")
    structured(await call(c, "kill_session", { session_name: "agent" }))
  })
})
