/**
 * search_panes when a pane closes during it (issue 33): the other panes' matches come back and
 * the closed pane is named in `vanished_panes`, instead of the whole call failing with tmux's
 * command list. A tmux wrapper (LIBTMUX_TMUX_BIN) kills the pane the test names just before the
 * capture invocation, so the pane is listed and then gone, every time.
 */
import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { absent, call, structured, textOf } from "../support/mcp.ts"
import { shellEnv } from "../support/shells.ts"

const h = harness("vanished", { inProcess: true })

describe("search_panes and a pane that closes during it", () => {
  it("returns the other panes' matches and names the closed pane", async () => {
    const world = h.world()
    const victimFile = join(world.dir, "victim")
    const wrapper = join(world.dir, "closing-tmux")
    // Before the capture invocation, once: kill the pane named in the victim file.
    writeFileSync(
      wrapper,
      `#!/bin/sh\ncase "$*" in *capture-pane*) if [ -s '${victimFile}' ]; then ` +
        `victim=$(cat '${victimFile}'); : > '${victimFile}'; tmux -L libtmux-mcp kill-pane -t "$victim"; fi;; esac\n` +
        `exec tmux "$@"\n`
    )
    chmodSync(wrapper, 0o755)
    const c = await h.connect(world, {
      ...shellEnv(world, "/bin/bash"),
      LIBTMUX_TMUX_BIN: wrapper,
      LIBTMUX_TRANSPORT: "spawn"
    })
    const first = structured(await call(c, "create_session", { session_name: "s" })).pane_id as string
    const second = structured(await call(c, "split_window", { pane_id: first })).pane_id as string
    const third = structured(await call(c, "split_window", { pane_id: first })).pane_id as string
    for (const pane of [first, second, third]) {
      await call(c, "run_shell_command", { pane_id: pane, command: `echo found-in-${pane.slice(1)}` })
    }
    writeFileSync(victimFile, second)
    const result = await call(c, "search_panes", { pattern: "found-in-" })
    const found = structured(result)
    assert.deepStrictEqual(found.vanished_panes, [second], textOf(result))
    assert.deepStrictEqual(
      found.matches.map((match: { pane_id: string }) => match.pane_id).sort(),
      [first, third].sort()
    )
    for (const match of found.matches) {
      assert.include(match.lines.join("\n"), `found-in-${(match.pane_id as string).slice(1)}`)
    }
    assert.strictEqual(found.panes_searched, 2)
    assert.strictEqual(found.panes_matched, 2)
    // The wrapper did kill it: the pane is gone, and a search now names nothing vanished.
    assert.notInclude(world.tmux("libtmux-mcp", "list-panes", "-a", "-F", "#{pane_id}").split("\n"), second)
    absent(structured(await call(c, "search_panes", { pattern: "found-in-" })), "vanished_panes")
  })
})
