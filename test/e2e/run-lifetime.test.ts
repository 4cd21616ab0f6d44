/**
 * A typed run is a resource with one release: whatever ends the call after the command was typed
 * (the waiting tmux client killed under load, a failed read) leaves the run held under its ID, so
 * the answer names a run the agent can resume; and nothing is typed once the call's time is up.
 */
import { chmodSync, existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { absent, call, structured, textOf } from "../support/mcp.ts"
import { until } from "../support/poll.ts"
import { leftovers, resume, runHarness } from "../support/runs.ts"

const h = runHarness("lifetime", { inProcess: true })
const tag = (result: { readonly _meta?: Record<string, unknown> | undefined }) =>
  result._meta?.["com.git-pull.libtmux-mcp/error"]

describe("a typed run's lifetime", () => {
  it("a tmux client killed while it waits on a typed run: the answer names the run; resume collects it", async () => {
    const { world, c, pane } = await h.open("/bin/bash", {}, (world, env) => {
      // Stands for a tmux client lost under load: the first invocation that waits is killed after 1 s
      // (the resume's own wait is left alone).
      const wrapper = join(world.dir, "killed-tmux")
      const killed = join(world.dir, "killed-once")
      writeFileSync(
        wrapper,
        `#!/bin/sh\ncase "$*" in *"wait-for lmcp_"*) if [ ! -e '${killed}' ]; then : > '${killed}'; ` +
          `exec timeout -s KILL 1 tmux "$@"; fi;; esac\nexec tmux "$@"\n`
      )
      chmodSync(wrapper, 0o755)
      ;(env as Record<string, string>).LIBTMUX_TMUX_BIN = wrapper
    })
    const failed = await call(c, "run_shell_command", { pane_id: pane, command: "sleep 2; echo survived", timeout: 10 })
    assert.isTrue(failed.isError, JSON.stringify(failed))
    assert.strictEqual(tag(failed), "RunWaitFailed", textOf(failed))
    const runId = /run ([0-9a-f]{6})/u.exec(textOf(failed))?.[1]
    assert.isDefined(runId, textOf(failed))
    assert.include(textOf(failed), "resume")
    const held = structured(await call(c, "get_server_info")).held_runs ?? []
    assert.deepInclude(held.map((run: { run_id: string }) => run.run_id), runId)
    assert.deepInclude(await resume(c, pane, runId!, 10), { output: "survived", exit_status: 0 })
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("a call whose time ran out before the pane was looked at types nothing", async () => {
    const { world, c, pane } = await h.open()
    const refused = await call(c, "run_shell_command", { pane_id: pane, command: "echo never-typed", timeout: 0.001 })
    assert.isTrue(refused.isError, JSON.stringify(refused))
    assert.strictEqual(tag(refused), "PaneNotReady", textOf(refused))
    assert.include(textOf(refused), "nothing was typed")
    assert.notInclude(world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", pane), "never-typed")
    assert.deepStrictEqual(leftovers(world, pane), [])
    // The pane is as free as before.
    assert.deepInclude(
      structured(await call(c, "run_shell_command", { pane_id: pane, command: "echo next" })),
      { output: "next", exit_status: 0 }
    )
  })

  it("a timeout that runs out while the typing tmux client starts: PaneNotReady, nothing typed, no run", async () => {
    const { world, c, pane } = await h.open("/bin/bash", {}, (world, env) => {
      // Stands for a tmux client slow to start on a loaded machine: the invocation that types
      // starts half a second late, so a short timeout always runs out before tmux runs its list.
      const wrapper = join(world.dir, "slow-tmux")
      writeFileSync(wrapper, `#!/bin/sh\ncase "$*" in *paste-buffer*) sleep 0.5;; esac\nexec tmux "$@"\n`)
      // A forked client's start is what is slow here: the control connection starts none to type.
      chmodSync(wrapper, 0o755)
      ;(env as Record<string, string>).LIBTMUX_TMUX_BIN = wrapper
      ;(env as Record<string, string>).LIBTMUX_TRANSPORT = "spawn"
    })
    // The shell at its prompt: the readiness look (a first contact each time) takes a few ms.
    await until("the shell's prompt", () => world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", pane).trim() !== "")
    const marker = join(world.dir, "typed")
    for (const timeout of [0.05, 0.08, 0.1, 0.1]) {
      const refused = await call(c, "run_shell_command", {
        pane_id: pane,
        command: `touch ${shellQuote(marker)}`,
        timeout
      })
      assert.isTrue(refused.isError, `timeout ${timeout}: ${JSON.stringify(refused.structuredContent)}`)
      assert.strictEqual(tag(refused), "PaneNotReady", textOf(refused))
      assert.include(textOf(refused), "nothing was typed")
      assert.notMatch(textOf(refused), /run [0-9a-f]{6}/u)
    }
    absent(structured(await call(c, "get_server_info")), "held_runs")
    // A later run in the same shell is the barrier: anything typed before it has run by its end.
    const next = structured(await call(c, "run_shell_command", { pane_id: pane, command: "echo next", timeout: 10 }))
    assert.deepInclude(next, { output: "next", exit_status: 0 })
    assert.notProperty(next, "earlier_run")
    assert.isFalse(existsSync(marker), "a refused call's command ran")
    assert.deepStrictEqual(leftovers(world, pane), [])
  })
})
