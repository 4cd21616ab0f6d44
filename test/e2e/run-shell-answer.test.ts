/**
 * A run that waits for the keyboard (issue 38), through the SDK client on real tmux: the next
 * command on its pane is refused at once, naming the run, the program in front and both ways out,
 * while a run that is only slow is still waited for; an interrupted run's answer carries its output.
 */
import { existsSync } from "node:fs"
import { assert, describe, it } from "vitest"
import { call, type Connected, structured, textOf } from "../support/mcp.ts"
import { leftovers, resume, run, runHarness } from "../support/runs.ts"
import { shellEnv } from "../support/shells.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const h = runHarness("answer")
const { open } = h
const keys = (world: TmuxWorld, pane: string, ...args: ReadonlyArray<string>) =>
  world.tmux("libtmux-mcp", "send-keys", "-t", pane, ...args)
const tag = (result: { readonly _meta?: Record<string, unknown> | undefined }) =>
  result._meta?.["com.git-pull.libtmux-mcp/error"]

/** A run that must come back blocked, long before its timeout. */
const blocked = async (c: Connected, pane: string, command: string) => {
  const result = structured(
    await call(c, "run_shell_command", { pane_id: pane, command, timeout: 60 }, { timeout: 20_000 })
  )
  assert.isDefined(result.blocked_by, `${command}: ${JSON.stringify(result)}`)
  return result
}

/**
 * The next command on a pane a blocked run holds: with a timeout of 60 s, bounded at 5 s by the
 * request (the refusal itself comes within 1 s; bench measures it), so waiting out the timeout fails.
 */
const refusedAtOnce = async (c: Connected, pane: string) => {
  const refused = await call(
    c,
    "run_shell_command",
    { pane_id: pane, command: "echo no", timeout: 60 },
    { timeout: 5_000 }
  )
  assert.strictEqual(tag(refused), "PaneNotReady", textOf(refused))
  return textOf(refused)
}

describe("a run that waits for the keyboard refuses the next command at once", () => {
  it.skipIf(!existsSync("/usr/bin/python3"))("a REPL a run started, by this instance or another", async () => {
    const { world, c, pane } = await open()
    const repl = await blocked(c, pane, "python3 -q")
    assert.deepInclude(repl.blocked_by, { program: "python3", kind: "line-editor" })
    const other = await h.connect(world, shellEnv(world, "/bin/bash"))
    for (const instance of [c, other]) {
      const text = await refusedAtOnce(instance, pane)
      for (const words of [repl.run_id, "python3", "line editor", "send_keys", `resume "${repl.run_id}"`, "C-d"]) {
        assert.include(text, words)
      }
    }
    keys(world, pane, "C-d")
    assert.deepInclude(await resume(c, pane, repl.run_id, 15), { exit_status: 0 })
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("a prompt of read -p, and cat reading the terminal", async () => {
    const { world, c, pane } = await open()
    const asked = await blocked(c, pane, "read -p 'name? ' answer; echo got $answer")
    assert.include(await refusedAtOnce(c, pane), `run ${asked.run_id}`)
    keys(world, pane, "-l", "bob")
    keys(world, pane, "Enter")
    assert.deepInclude(await resume(c, pane, asked.run_id, 15), { exit_status: 0 })
    const waiting = await blocked(c, pane, "cat")
    const text = await refusedAtOnce(c, pane)
    for (const words of [waiting.run_id, "\"cat\"", "cat in front", "C-c"]) assert.include(text, words)
    keys(world, pane, "C-d")
    assert.deepInclude(await resume(c, pane, waiting.run_id, 15), { exit_status: 0 })
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("a run that is only slow is waited for, and the next command reports it", async () => {
    const { world, c, pane } = await open()
    const slow = await run(c, pane, "sleep 2", { timeout: 1 })
    assert.isTrue(slow.timed_out)
    const next = await run(c, pane, "echo next", { timeout: 30 })
    assert.deepInclude(next, { output: "next", exit_status: 0, earlier_run: { run_id: slow.run_id, exit_status: 0 } })
    assert.deepStrictEqual(leftovers(world, pane), [])
  })
})

describe("an interrupted run's answer carries its output", () => {
  it("within max_lines, after the previous answer or whole", async () => {
    const { world, c, pane } = await open()
    const timed = await run(c, pane, "for i in 1 2 3 4; do echo line$i; done; sleep 60", { timeout: 1 })
    assert.deepInclude(timed, { timed_out: true, output: "line1\nline2\nline3\nline4" })
    keys(world, pane, "C-c")
    const lost = await call(c, "run_shell_command", {
      pane_id: pane,
      resume: timed.run_id,
      timeout: 15,
      whole_output: true,
      max_lines: 3
    })
    assert.strictEqual(tag(lost), "RunUnreported", textOf(lost))
    const text = textOf(lost)
    assert.include(text, "Its output (its last lines within max_lines/max_bytes; 2 lines before them left out):\n")
    assert.match(text, /:\nline3\nline4\n\^C$/u)
    assert.notInclude(text, "capture_pane")
    // Without whole_output it is what came after the previous answer, as a resume returns it.
    const again = await run(c, pane, "echo five; sleep 60", { timeout: 1 })
    assert.deepInclude(again, { timed_out: true, output: "five" })
    keys(world, pane, "C-c")
    const since = await call(c, "run_shell_command", { pane_id: pane, resume: again.run_id, timeout: 15 })
    assert.strictEqual(tag(since), "RunUnreported", textOf(since))
    assert.match(textOf(since), /Its output since the previous answer:\n\^C$/u)
    assert.deepStrictEqual(leftovers(world, pane), [])
  })
})
