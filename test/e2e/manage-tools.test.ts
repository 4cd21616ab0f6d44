/**
 * The typed management, teardown, configuration-read and batch tools end to end against real tmux:
 * literal names and titles, exact targets, self-kill guards, and every batch rule.
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { harness, sharedServer } from "../support/harness.ts"
import { absent, call, type Connected, structured, textOf } from "../support/mcp.ts"
import { until } from "../support/poll.ts"
import { missingHere, shellEnv } from "../support/shells.ts"
import { afterFormatJobs, markerJob, type TmuxWorld } from "../support/tmux.ts"

// A test that sets the server's environment builds its own in process.
const h = harness("manage", { inProcess: true })
// These tests are about tmux state: they share one server process, each with a fresh tmux server,
// unless a test sets the server's environment.
const shared = sharedServer("manage", (world) => shellEnv(world, "/bin/bash"))

const open = async (extra: Record<string, string> = {}) => {
  const { world, c } = Object.keys(extra).length === 0 ? await shared.freshTmux() : await own(extra)
  const session = structured(await call(c, "create_session", { session_name: "work", width: 100, height: 30 }))
  return { world, c, session, pane: session.pane_id as string }
}
const own = async (extra: Record<string, string>) => {
  const world = h.world()
  return { world, c: await h.connect(world, { ...shellEnv(world, "/bin/bash"), ...extra }) }
}
const markers = (world: TmuxWorld) => readdirSync(world.dir).filter((name) => name.startsWith("marker"))
const fails = async (c: Connected, tool: string, args: Record<string, unknown>, tag?: string) => {
  const result = await call(c, tool, args)
  assert.isTrue(result.isError, `${tool} ${JSON.stringify(args)}`)
  if (tag !== undefined) assert.strictEqual(result._meta?.["com.git-pull.libtmux-mcp/error"], tag, textOf(result))
  return textOf(result)
}

describe("renames and titles are literal", () => {
  it("stores #(...), #{...} and a trailing ; as given, and runs nothing", async () => {
    const { world, c, session, pane } = await open()
    const job = markerJob("rename")
    const renamed = structured(
      await call(c, "rename_session", { session_id: session.session_id, new_name: `s${job};` })
    )
    assert.strictEqual(renamed.session_name, `s${job};`)
    const window = structured(
      await call(c, "rename_window", { window_id: session.window_id, new_name: "w#{pane_id}#[fg=red]" })
    )
    assert.strictEqual(window.window_name, "w#{pane_id}#[fg=red]")
    const titled = structured(await call(c, "set_pane_title", { pane_id: pane, title: `t${job} #{session_name} a;b;` }))
    assert.strictEqual(titled.pane_title, `t${job} #{session_name} a;b;`)
    afterFormatJobs(world)
    assert.deepStrictEqual(markers(world), [])
    assert.include(
      await fails(c, "rename_session", { session_id: session.session_id, new_name: "a.b" }, "InputInvalid"),
      "'.'"
    )
    structured(await call(c, "create_session", { session_name: "taken" }))
    await fails(c, "rename_session", { session_name: "taken", new_name: `s${job};` }, "SessionExists")
  })
})

describe("structure and presentation", () => {
  it("selects windows and panes, including by direction, and returns what is now active", async () => {
    const { c, session, pane } = await open()
    const second = structured(await call(c, "create_window", { session_id: session.session_id }))
    assert.strictEqual(
      structured(await call(c, "select_window", { window_id: second.window_id })).window_id,
      second.window_id
    )
    assert.strictEqual(
      structured(await call(c, "select_window", { session_name: "work", direction: "next" })).window_id,
      session.window_id
    )
    assert.strictEqual(
      structured(await call(c, "select_window", { session_name: "work", window_index: second.window_index })).window_id,
      second.window_id
    )
    await fails(c, "select_window", { session_name: "work", direction: "sideways" })
    const right = structured(await call(c, "split_window", { pane_id: pane, direction: "right" })).pane_id
    assert.strictEqual(structured(await call(c, "select_pane", { pane_id: right })).pane_id, right)
    assert.strictEqual(structured(await call(c, "select_pane", { pane_id: right, direction: "left" })).pane_id, pane)
    assert.strictEqual(structured(await call(c, "select_pane", { pane_id: pane, direction: "next" })).pane_id, right)
  })

  it("sets layouts and sizes, zooms idempotently, moves and swaps", async () => {
    const { c, session, pane } = await open()
    const below = structured(await call(c, "split_window", { pane_id: pane })).pane_id
    assert.include(
      structured(await call(c, "select_layout", { window_id: session.window_id, layout: "even-horizontal" }))
        .window_layout,
      ","
    )
    assert.strictEqual(
      structured(await call(c, "resize_window", { window_id: session.window_id, width: 90, height: 25 })).window_width,
      90
    )
    assert.strictEqual(structured(await call(c, "resize_pane", { pane_id: pane, width: 30 })).pane_width, 30)
    for (const zoom of [true, true, false, false]) {
      structured(await call(c, "resize_pane", { pane_id: pane, zoom }))
    }
    await fails(c, "resize_pane", { pane_id: pane, zoom: true, width: 5 })
    await fails(c, "resize_pane", { pane_id: pane })
    const other = structured(await call(c, "create_session", { session_name: "other" }))
    const moved = structured(
      await call(c, "move_window", { window_id: session.window_id, to_session_name: "other", to_index: 7 })
    )
    assert.deepInclude(moved, { session_id: other.session_id, window_index: 7 })
    const swapped = structured(await call(c, "swap_pane", { source_pane_id: pane, target_pane_id: below }))
    assert.strictEqual(swapped.pane_index, 1)
    await fails(c, "swap_pane", { source_pane_id: pane, target_pane_id: pane }, "InputInvalid")
  })

  it("enters and leaves copy mode, and sets the typed options", async () => {
    const { world, c, session, pane } = await open()
    await call(c, "run_shell_command", { pane_id: pane, command: "seq 1 100" })
    assert.isTrue(structured(await call(c, "enter_copy_mode", { pane_id: pane, scroll_up: 10 })).pane_in_mode)
    assert.isFalse(structured(await call(c, "exit_copy_mode", { pane_id: pane })).pane_in_mode)
    assert.isFalse(structured(await call(c, "exit_copy_mode", { pane_id: pane })).pane_in_mode)
    structured(await call(c, "set_mouse_enabled", { session_name: "work", enabled: true }))
    assert.strictEqual(world.tmux("libtmux-mcp", "show", "-v", "-t", session.session_id, "mouse").trim(), "on")
    await fails(c, "set_mouse_enabled", { enabled: true })
    await fails(c, "set_mouse_enabled", { global: true, session_name: "work", enabled: true })
    await fails(c, "set_history_limit", { global: true, lines: -1 })
  })

  it("keeps existing panes' history when the history limit is lowered (the claim in its description)", async () => {
    const { world, c, pane } = await open()
    await call(c, "run_shell_command", { pane_id: pane, command: "seq 1 3000" })
    const before = Number(world.tmux("libtmux-mcp", "display", "-p", "-t", pane, "#{history_size}"))
    structured(await call(c, "set_history_limit", { global: true, lines: 100 }))
    structured(await call(c, "set_history_limit", { session_name: "work", lines: 100 }))
    assert.strictEqual(Number(world.tmux("libtmux-mcp", "display", "-p", "-t", pane, "#{history_size}")), before)
    assert.include(world.tmux("libtmux-mcp", "capture-pane", "-p", "-S", "-", "-t", pane), "\n1\n")
    const fresh = structured(await call(c, "split_window", { pane_id: pane })).pane_id
    assert.strictEqual(world.tmux("libtmux-mcp", "display", "-p", "-t", fresh, "#{history_limit}").trim(), "100")
  })

  it("turns synchronize-panes on and off, and send_keys then reaches every pane", async () => {
    const { c, session, pane } = await open()
    const other = structured(await call(c, "split_window", { pane_id: pane })).pane_id
    const on = structured(await call(c, "set_synchronize_panes", { window_id: session.window_id, enabled: true }))
    assert.isTrue(on.synchronize_panes)
    assert.deepStrictEqual(
      [...structured(await call(c, "send_keys", { pane_id: pane, keys: "true" })).targets].sort(),
      [pane, other].sort()
    )
    structured(await call(c, "set_synchronize_panes", { window_id: session.window_id, enabled: false }))
    assert.deepStrictEqual(structured(await call(c, "send_keys", { pane_id: pane, keys: "true" })).targets, [pane])
  })

  it.skipIf(missingHere("/usr/bin/fish", "/bin/dash", "/usr/bin/python3"))(
    "describes the respawned pane's new program and its folder, not the shell that started it",
    async () => {
      const { world, c, pane } = await open()
      for (const [command, program] of [["fish", "fish"], ["dash", "dash"], ["/usr/bin/python3", "python3"]]) {
        const respawned = structured(
          await call(c, "respawn_pane", { pane_id: pane, command, start_directory: world.dir })
        )
        assert.deepInclude(respawned, { pane_current_command: program, pane_current_path: world.dir }, command)
      }
    }
  )

  it("describes the program, not the shell that starts it, when that shell is slow to run it", async () => {
    const world = h.world()
    // A default shell that waits before it runs the command, as a shell may on a loaded machine:
    // two reads of the pane a moment apart both name it.
    const slow = join(world.dir, "slow-sh")
    writeFileSync(slow, "#!/bin/bash\nsleep 0.3\nexec /bin/bash \"$@\"\n", { mode: 0o755 })
    const c = await h.connect(world, shellEnv(world, slow))
    const pane = structured(await call(c, "create_session", { session_name: "work" })).pane_id
    const respawned = structured(
      await call(c, "respawn_pane", { pane_id: pane, command: "dash", start_directory: world.dir })
    )
    assert.deepInclude(respawned, { pane_current_command: "dash", pane_current_path: world.dir })
  })

  it("respawns a pane with its shell or a command, and never expands a start directory", async () => {
    const { world, c, pane } = await open()
    const before = structured(await call(c, "get_pane_info", { pane_id: pane })).pane_pid
    const dir = join(world.dir, "#(touch marker-respawn)")
    mkdirSync(dir)
    const respawned = structured(await call(c, "respawn_pane", { pane_id: pane, start_directory: dir }))
    assert.notStrictEqual(respawned.pane_pid, before)
    await until(
      "the respawned shell's folder",
      () => world.tmux("libtmux-mcp", "display", "-p", "-t", pane, "#{pane_current_path}").trim(),
      (path) => path === dir
    )
    structured(await call(c, "respawn_pane", { pane_id: pane, command: "printf 'R#(x)\\n'; sleep 30" }))
    await until("the respawned command's output", () => world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", pane), (
      screen
    ) => screen.includes("R#(x)"))
    afterFormatJobs(world)
    assert.deepStrictEqual(markers(world), [])
  })
})

describe("teardown", () => {
  it("clears scrollback and kills panes and windows by exact ID", async () => {
    const { world, c, session, pane } = await open()
    await call(c, "run_shell_command", { pane_id: pane, command: "seq 1 200" })
    assert.isAbove(structured(await call(c, "clear_pane_scrollback", { pane_id: pane })).lines_discarded, 0)
    assert.strictEqual(world.tmux("libtmux-mcp", "display", "-p", "-t", pane, "#{history_size}").trim(), "0")
    const extra = structured(await call(c, "split_window", { pane_id: pane })).pane_id
    structured(await call(c, "kill_pane", { pane_id: extra }))
    await fails(c, "kill_pane", { pane_id: extra }, "PaneNotFound")
    const second = structured(await call(c, "create_window", { session_id: session.session_id }))
    structured(await call(c, "kill_window", { window_id: second.window_id }))
    assert.strictEqual(structured(await call(c, "list_windows", { session_id: session.session_id })).windows.length, 1)
  })

  it("refuses the pane, window and session this server runs in on the pinned socket", async () => {
    const world = h.world()
    world.tmux("libtmux-mcp", "new-session", "-d", "-s", "home")
    world.tmux("libtmux-mcp", "split-window", "-t", "=home:")
    const [own, sibling] = world.tmux("libtmux-mcp", "list-panes", "-t", "=home:", "-F", "#{pane_id}").trim().split(
      "\n"
    )
    const window = world.tmux("libtmux-mcp", "display", "-p", "-t", own!, "#{window_id}").trim()
    const c = await h.connect(world, {
      TMUX: `${world.socketPath("libtmux-mcp")},1,0`,
      TMUX_PANE: own!,
      LIBTMUX_TOOLSETS: "inspect,execute,teardown"
    })
    assert.include(await fails(c, "kill_pane", { pane_id: own }, "SelfKillRefused"), own!)
    await fails(c, "kill_window", { window_id: window }, "SelfKillRefused")
    await fails(c, "kill_session", { session_name: "home" }, "SelfKillRefused")
    await fails(c, "respawn_pane", { pane_id: own }, "SelfKillRefused")
    structured(await call(c, "kill_pane", { pane_id: sibling }))
    assert.strictEqual(world.tmux("libtmux-mcp", "list-panes", "-t", "=home:", "-F", "#{pane_id}").trim(), own)
  })
})

describe("configuration reads", () => {
  it("get_tmux_variables reads named variables one by one and rejects anything but names", async () => {
    const { c, pane } = await open()
    const read = structured(
      await call(c, "get_tmux_variables", { pane_id: pane, names: ["session_name", "pane_id", "no_such_variable"] })
    )
    assert.deepStrictEqual(read.variables, { session_name: "work", pane_id: pane, no_such_variable: "" })
    for (const name of ["#{pane_id}", "pane id", "1abc", "a;b", "#(touch x)", "S"]) {
      if (name === "S") continue
      await fails(c, "get_tmux_variables", { pane_id: pane, names: [name] }, "InputInvalid")
    }
    await fails(c, "get_tmux_variables", { pane_id: pane, names: [] }, "InputInvalid")
  })

  it("show_option reads server, session, window, pane and user options, and names bad requests", async () => {
    const { world, c, session, pane } = await open()
    assert.strictEqual(structured(await call(c, "show_option", { scope: "server", name: "exit-empty" })).value, "on")
    assert.strictEqual(
      structured(await call(c, "show_option", { scope: "session", name: "history-limit", session_name: "work" })).value,
      "50000"
    )
    assert.isString(
      structured(await call(c, "show_option", { scope: "window", name: "mode-keys", global: true })).value
    )
    world.tmux("libtmux-mcp", "set", "-p", "-t", pane, "@note", "hello #{x}")
    assert.strictEqual(
      structured(await call(c, "show_option", { scope: "pane", name: "@note", pane_id: pane })).value,
      "hello #{x}"
    )
    assert.isNull(structured(await call(c, "show_option", { scope: "pane", name: "@unset", pane_id: pane })).value)
    await fails(
      c,
      "show_option",
      { scope: "session", name: "no-such-option", session_id: session.session_id },
      "InputInvalid"
    )
    await fails(c, "show_option", { scope: "session", name: "status" }, "InputInvalid")
    await fails(c, "show_option", { scope: "server", name: "#{pid}" }, "InputInvalid")
  })

  it("show_environment returns the environment, including removals, and one variable on request", async () => {
    const { world, c } = await open()
    world.tmux("libtmux-mcp", "set-environment", "-g", "SECRET_TOKEN", "abc=def")
    world.tmux("libtmux-mcp", "set-environment", "-g", "-r", "REMOVED")
    const all = structured(await call(c, "show_environment", {})).variables
    assert.deepInclude(all, { name: "SECRET_TOKEN", value: "abc=def" })
    assert.deepInclude(all, { name: "REMOVED", value: null })
    assert.deepStrictEqual(structured(await call(c, "show_environment", { name: "SECRET_TOKEN" })).variables, [{
      name: "SECRET_TOKEN",
      value: "abc=def"
    }])
    assert.deepStrictEqual(structured(await call(c, "show_environment", { name: "NOT_SET_ANYWHERE" })).variables, [])
  })

  it("show_hooks lists hooks with their commands, and one hook by name", async () => {
    const { world, c } = await open()
    world.tmux("libtmux-mcp", "set-hook", "-g", "after-new-window", "display-message hi")
    const hooks = structured(await call(c, "show_hooks", {})).hooks
    assert.deepInclude(hooks, { name: "after-new-window", index: 0, command: "display-message hi" })
    const one = structured(await call(c, "show_hooks", { name: "after-new-window" })).hooks
    assert.strictEqual(one.length, 1)
  })
})

describe("call_read_tools_batch", () => {
  it("runs read operations in order, with a status and nested result each, and honours onError", async () => {
    const { c, pane } = await open()
    const result = structured(
      await call(c, "call_read_tools_batch", {
        operations: [{ tool: "list_sessions" }, { tool: "get_pane_info", arguments: { pane_id: "%99" } }, {
          tool: "get_pane_info",
          arguments: { pane_id: pane }
        }]
      })
    )
    assert.deepStrictEqual(result.results.map((row: { status: string }) => row.status), ["ok", "error", "skipped"])
    assert.strictEqual(result.stopped_at, 1)
    assert.isTrue(result.results[1].result.isError)
    assert.include(result.results[1].result.content[0].text, "pane %99 not found")
    const carried = structured(
      await call(c, "call_read_tools_batch", {
        onError: "continue",
        operations: [{ tool: "get_pane_info", arguments: { pane_id: "%99" } }, {
          tool: "get_pane_info",
          arguments: { pane_id: pane }
        }]
      })
    )
    assert.deepStrictEqual([carried.succeeded, carried.failed], [1, 1])
    assert.strictEqual(carried.results[1].result.structuredContent.pane_id, pane)
  })

  it("offers only the selection's eligible reads, never itself, waits or show_environment unless named", async () => {
    const { c } = await open()
    const batch = (await c.client.listTools()).tools.find((tool) => tool.name === "call_read_tools_batch")!
    const nested =
      (batch._meta?.["com.git-pull.libtmux-mcp/capability"] as { nestedAuthority: Array<string> } | undefined)
        ?.nestedAuthority ?? []
    for (const excluded of ["call_read_tools_batch", "wait_for_text", "show_environment", "run_shell_command"]) {
      assert.notInclude(nested, excluded)
    }
    assert.include(nested, "capture_pane")
    const schema = batch.inputSchema as unknown as {
      properties: { operations: { items: { properties: { tool: { enum: Array<string> } } } } }
    }
    assert.deepStrictEqual(schema.properties.operations.items.properties.tool.enum, nested)
    for (const tool of ["show_environment", "wait_for_text", "kill_session", "call_read_tools_batch"]) {
      await fails(c, "call_read_tools_batch", { operations: [{ tool }] }, "InputInvalid")
    }
    await fails(c, "call_read_tools_batch", { operations: [] }, "InputInvalid")
    await fails(c, "call_read_tools_batch", {
      operations: Array.from({ length: 17 }, () => ({ tool: "list_sessions" }))
    }, "InputInvalid")
  })

  it(
    "includes show_environment only when named in LIBTMUX_TOOLS, " +
      "drops excluded tools, and disappears with nothing to call",
    async () => {
      const named = await open({
        LIBTMUX_TOOLSETS: "inspect,execute",
        LIBTMUX_TOOLS: "show_environment",
        LIBTMUX_EXCLUDE_TOOLS: "capture_pane"
      })
      const record = (await named.c.client.listTools()).tools.find((tool) => tool.name === "call_read_tools_batch")!
        ._meta
        ?.["com.git-pull.libtmux-mcp/capability"] as { nestedAuthority: Array<string> }
      assert.include(record.nestedAuthority, "show_environment")
      assert.notInclude(record.nestedAuthority, "capture_pane")
      await fails(named.c, "call_read_tools_batch", {
        operations: [{ tool: "capture_pane", arguments: { pane_id: "%0" } }]
      }, "InputInvalid")
      const alone = await open({
        LIBTMUX_TOOLSETS: "",
        LIBTMUX_TOOLS: "call_read_tools_batch,create_session,run_shell_command"
      })
      assert.notInclude((await alone.c.client.listTools()).tools.map((tool) => tool.name), "call_read_tools_batch")
    }
  )

  it("omits nested payloads, first row first, to stay within its size bound, and says so", async () => {
    const { c, pane } = await open()
    await call(c, "run_shell_command", {
      pane_id: pane,
      command: "head -c 300000 /dev/zero | tr '\\0' y | fold -w 200"
    })
    const big = {
      tool: "capture_pane",
      arguments: { pane_id: pane, start: -2000, max_lines: 100000, max_bytes: 4000000 }
    }
    const result = structured(
      await call(c, "call_read_tools_batch", { operations: [big, big, big, { tool: "list_sessions" }] })
    )
    assert.isAbove(result.payloads_omitted, 0)
    assert.isTrue(result.results[0].payload_omitted)
    assert.isNull(result.results[0].result)
    absent(result.results[3], "payload_omitted")
  })
})
