/**
 * Every tool that advertises destructiveHint false, called against a real tmux: observational tools
 * leave tmux state exactly as it was; additive tools leave every existing object as it was (by ID,
 * name, title, process, mode and options) and only add. A split shares the split pane's space, so
 * geometry, and the history a shrinking pane scrolls into, are not part of the comparison.
 */
import { assert, describe, it } from "vitest"
import { nonDestructive } from "../support/additive.ts"
import { sharedServer } from "../support/harness.ts"
import { call, structured, uiCapabilities } from "../support/mcp.ts"
import { shellEnv } from "../support/shells.ts"
import { paneShows, type TmuxWorld } from "../support/tmux.ts"

// What a tool may change is tmux's state: a fresh tmux server for each tool. The client shows MCP
// Apps, so the pane view's own tool (view_pane) is one it may call.
const shared = sharedServer("additive", (world) => shellEnv(world, "/bin/bash"), uiCapabilities)

/**
 * Everything about the tmux server that a tool could change, one line per object: one tmux client
 * runs the reads in turn (`;` between them), their lines in that order.
 */
const snapshot = (world: TmuxWorld): ReadonlyArray<string> => {
  const reads: ReadonlyArray<ReadonlyArray<string>> = [
    ["list-sessions", "-F", "session #{session_id} #{session_name} #{session_windows}"],
    [
      "list-windows",
      "-a",
      "-F",
      "window #{window_id} #{window_name} #{window_index} #{session_id} active=#{window_active}"
    ],
    [
      "list-panes",
      "-a",
      "-F",
      "pane #{pane_id} #{window_id} #{pane_pid} title=#{pane_title} " +
      "mode=#{pane_in_mode} active=#{pane_active} history=#{history_size}"
    ],
    ["list-buffers", "-F", "buffer #{buffer_name} #{buffer_size}"],
    ["show-options", "-s"],
    ["show-options", "-g"],
    ["show-environment", "-g"],
    ["show-hooks", "-g"]
  ]
  return world.tmux("libtmux-mcp", ...reads.flatMap((read, at) => at === 0 ? read : [";", ...read]))
    .split("\n").filter((line) => line !== "")
}

describe("destructiveHint false", () => {
  for (const [tool, { kind, args }] of Object.entries(nonDestructive)) {
    it(`${tool} is ${kind}`, async () => {
      const { world, c } = await shared.freshTmux()
      const created = structured(await call(c, "create_session", { session_name: "work" }))
      await call(c, "run_shell_command", { pane_id: created.pane_id, command: "seq 1 30" })
      // tmux renames the window after the program in front (the run's status report is a tmux
      // client): the name settles back on the shell within a moment.
      await paneShows(world, created.pane_id, "#{window_name}", (name) => name === "bash")
      const before = snapshot(world)
      const result = await call(
        c,
        tool,
        args({ session: created.session_id, window: created.window_id, pane: created.pane_id })
      )
      assert.notStrictEqual(result.isError, true, JSON.stringify(result.content))
      const after = snapshot(world)
      if (kind === "observational") assert.deepStrictEqual(after, before)
      else {
        const kept = (lines: ReadonlyArray<string>) =>
          lines.filter((line) => !line.startsWith("session ")).map((line) =>
            line.replace(/ active=\d/u, "").replace(/ history=\d+/u, "")
          )
        for (const line of kept(before)) assert.include(kept(after), line, `${tool} changed or removed: ${line}`)
        assert.isAbove(after.length, before.length)
      }
    })
  }
})
