/**
 * Issue 33: a command that replaces the shell (an in-shell `exec`) says so and releases the pane,
 * and an incomplete command whose open input C-c cannot cancel (the shell ignores SIGINT) says
 * that, keeps the pane from the next command at once, with a remedy that works.
 */
import { assert, describe, it } from "vitest"
import { absent, call, type Connected, textOf } from "../support/mcp.ts"
import { leftovers, run, runHarness } from "../support/runs.ts"
import { missingHere, shellEnv } from "../support/shells.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const h = runHarness("replaced", { inProcess: true })
// Two servers on one socket are two processes (an in-process pair would share one process ID).
const bin = runHarness("replaced")
const { open } = h
const tag = (result: { readonly _meta?: Record<string, unknown> | undefined }) =>
  result._meta?.["com.git-pull.libtmux-mcp/error"]
const cursorRow = (world: TmuxWorld, pane: string) => {
  const y = Number(world.tmux("libtmux-mcp", "display", "-p", "-t", pane, "#{cursor_y}").trim())
  return world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", pane).split("\n")[y] ?? ""
}

/**
 * A call on the pane that must be refused at once: its 10 s timeout would be waited out by a pane
 * still held, so the request's own bound (3 s) fails the test when the refusal waits.
 */
const refusedAtOnce = async (c: Connected, pane: string) => {
  const refused = await call(c, "run_shell_command", { pane_id: pane, command: "echo next", timeout: 10 }, {
    timeout: 3_000
  })
  assert.strictEqual(tag(refused), "PaneNotReady", textOf(refused))
  return textOf(refused)
}

/** The remedy the refusals give: a new shell in the pane; then a command runs and reports. */
const respawnThenRun = async (c: Connected, pane: string) => {
  assert.notStrictEqual((await call(c, "respawn_pane", { pane_id: pane })).isError, true)
  return run(c, pane, "echo next; false", { timeout: 20 })
}

describe.concurrent("a command that replaces the shell releases the pane", () => {
  it("exec bash --norc: the shell was replaced, and the next commands run in the new bash", async () => {
    const { world, c, pane } = await open()
    const replaced = await run(c, pane, "exec bash --norc", { in_shell: true, timeout: 20 })
    assert.deepInclude(replaced, { exit_status: null, shell: "bash" })
    absent(replaced, "timed_out")
    assert.deepStrictEqual(replaced.shell_replaced, { program: "bash" })
    assert.notProperty(replaced, "run_id")
    assert.notProperty(replaced, "blocked_by")
    assert.deepInclude(await run(c, pane, "echo next; false", { timeout: 10 }), { exit_status: 1, output: "next" })
    const args = await run(c, pane, "tr '\\0' ' ' < /proc/$$/cmdline", { in_shell: true, timeout: 10 })
    assert.deepInclude(args, { exit_status: 0, output: "bash --norc " })
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it.skipIf(missingHere("/usr/bin/zsh"))(
    "exec zsh -f: the shell was replaced (its prompt is the same), and the next command runs",
    async () => {
      const { world, c, pane } = await open("/usr/bin/zsh")
      const replaced = await run(c, pane, "exec zsh -f", { in_shell: true, timeout: 20 })
      assert.deepInclude(replaced, { exit_status: null })
      absent(replaced, "timed_out")
      assert.deepStrictEqual(replaced.shell_replaced, { program: "zsh" })
      assert.notProperty(replaced, "run_id")
      assert.deepInclude(await run(c, pane, "echo next; false", { timeout: 10 }), { exit_status: 1, output: "next" })
      assert.deepStrictEqual(leftovers(world, pane), [])
    }
  )

  it.skipIf(missingHere("/usr/bin/python3"))(
    "exec python3 -q: replaced by python, the next command is refused at once, and respawn_pane frees the pane",
    async () => {
      const { world, c, pane } = await open()
      const replaced = await run(c, pane, "exec python3 -q", { in_shell: true, timeout: 20 })
      assert.deepInclude(replaced, { exit_status: null })
      absent(replaced, "timed_out")
      assert.match(replaced.shell_replaced?.program ?? "", /^python3/u, JSON.stringify(replaced))
      assert.include(replaced.output, ">>>")
      assert.include(await refusedAtOnce(c, pane), "respawn_pane")
      assert.deepInclude(await respawnThenRun(c, pane), { exit_status: 1, output: "next" })
      assert.deepStrictEqual(leftovers(world, pane), [])
    }
  )
})

describe.concurrent("an incomplete command whose open input C-c cannot cancel", () => {
  it("trap '' INT, then an unclosed quote: says C-c did not cancel it; the next is refused at once", async () => {
    const { world, c, pane } = await bin.open()
    assert.deepInclude(await run(c, pane, "trap '' INT", { in_shell: true }), { exit_status: 0 })
    const quoted = await call(c, "run_shell_command", { pane_id: pane, command: "echo \"abc", timeout: 10 })
    assert.strictEqual(tag(quoted), "RunIncomplete", textOf(quoted))
    assert.include(textOf(quoted), "C-c did not cancel")
    assert.notInclude(textOf(quoted), "cancelled with C-c")
    // The shell still reads the command's continuation.
    assert.strictEqual(cursorRow(world, pane).trim(), ">")
    const refusal = await refusedAtOnce(c, pane)
    assert.include(refusal, "C-c did not cancel")
    assert.include(refusal, "respawn_pane")
    // Nothing was typed into the open input.
    assert.notInclude(world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", pane), "echo next")
    // Another server instance's resume of that run leaves the pane held too.
    const runId = /run ([0-9a-f]{6})/u.exec(refusal)?.[1] ?? ""
    const other = await bin.connect(world, shellEnv(world, "/bin/bash"))
    const resumed = await call(other, "run_shell_command", { pane_id: pane, resume: runId, timeout: 10 })
    assert.strictEqual(tag(resumed), "RunIncomplete", textOf(resumed))
    assert.include(textOf(resumed), "C-c did not cancel")
    assert.include(await refusedAtOnce(other, pane), "respawn_pane")
    const next = await respawnThenRun(c, pane)
    assert.deepInclude(next, { exit_status: 1, output: "next" })
    assert.strictEqual(next.earlier_run?.exit_status, null)
    assert.deepStrictEqual(leftovers(world, pane), [])
  }, 60_000)
})
