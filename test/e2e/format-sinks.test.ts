/**
 * tmux runs `#(...)` jobs and expands `#{...}` in argument positions whose names give no hint of it
 * (on tmux 3.3a: new-session's -s, -n and -c), and splits its argv into commands at any argument
 * ending in `;`. Every string parameter of create_session gets those payloads; no file may appear
 * and the values must be stored exactly as given.
 */
import { existsSync, mkdirSync, readdirSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { call, structured } from "../support/mcp.ts"
import { until } from "../support/poll.ts"
import { afterFormatJobs, markerJob, userSessions } from "../support/tmux.ts"

const h = harness("sinks")

/** Files named `marker*` anywhere under the world or in the server's working directory. */
const markers = (dir: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  const walk = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      if (entry.name.startsWith("marker")) found.push(join(path, entry.name))
      if (entry.isDirectory() && !entry.name.startsWith("tmux-")) walk(join(path, entry.name))
    }
  }
  walk(dir)
  return found
}

describe("create_session format sinks", () => {
  it("stores names holding #(...), #{...} and a trailing ; literally, and runs nothing", async () => {
    const world = h.world()
    // HOME too: a job runs there when it has no other folder.
    const connected = await h.connect(world, { HOME: world.dir })
    const job = markerJob
    const cases = [
      { session_name: `s${job("session")}`, window_name: `w${job("window")}` },
      { session_name: "x#{session_id}y", window_name: "#{pane_id}" },
      { session_name: "semi;", window_name: "colon-free;" },
      { session_name: "hash##double", window_name: "#[fg=red]styled" },
      { session_name: "tail#", window_name: "#S #W ###[x #(open #{open" }
    ]
    for (const args of cases) {
      const created = structured(await call(connected, "create_session", args))
      assert.strictEqual(created.session_name, args.session_name)
      const window = world.tmux("libtmux-mcp", "display", "-p", "-t", String(created.window_id), "#{window_name}")
      assert.strictEqual(window.trimEnd(), args.window_name)
    }
    const names = userSessions(world)
    assert.deepStrictEqual(names, cases.map((c) => c.session_name).sort())
    afterFormatJobs(world)
    assert.deepStrictEqual(markers(world.dir), [])
  })

  it("passes a start_directory whose name holds #(...) without running it", async () => {
    const world = h.world()
    const connected = await h.connect(world)
    const dir = join(world.dir, "#(touch marker-dir)")
    mkdirSync(dir)
    const created = structured(await call(connected, "create_session", { start_directory: dir }))
    await until(
      "the session's folder",
      () => world.tmux("libtmux-mcp", "display", "-p", "-t", String(created.pane_id), "#{pane_current_path}").trim(),
      (path) => path === dir
    )
    afterFormatJobs(world)
    assert.deepStrictEqual(markers(world.dir), [])
    assert.isFalse(existsSync(join(dir, "marker-dir")))
  })

  it("treats lookup names holding formats as plain text that matches nothing", async () => {
    const world = h.world()
    const connected = await h.connect(world, { HOME: world.dir })
    structured(await call(connected, "create_session", { session_name: "real" }))
    for (const session_name of [markerJob("lookup"), "#{session_name}", "real;"]) {
      for (const tool of ["get_session_info", "list_windows", "list_panes", "kill_session"]) {
        const result = await call(connected, tool, { session_name })
        assert.isTrue(result.isError, `${tool} ${session_name}`)
      }
    }
    assert.deepStrictEqual(userSessions(world), ["real"])
    assert.deepStrictEqual(markers(world.dir), [])
  })
})
