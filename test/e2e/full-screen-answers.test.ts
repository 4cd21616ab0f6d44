/**
 * Answers around a full-screen program or a pager (issue 58): `output_is_screen` names it only for
 * the answers whose rows it showed (read while it held the pane, or, for one that drew on the main
 * screen, the first answer after it left), not for `cat`'s output after `vi f` quit; and a row the
 * answer behind vim ended within (a line that wraps in a narrow pane) does not come again at the
 * start of the next answers: they go on from where that answer ended, or say `repeated`.
 */
import { assert, describe, it } from "vitest"
import { call, type Connected, structured } from "../support/mcp.ts"
import { resume, runHarness } from "../support/runs.ts"
import { missingHere } from "../support/shells.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const { open } = runHarness("fullscreen", { inProcess: true })
const keys = (world: TmuxWorld, pane: string, ...args: ReadonlyArray<string>) =>
  world.tmux("libtmux-mcp", "send-keys", "-t", pane, ...args)

/** A run or resume that must come back blocked, long before its timeout. */
const blocked = async (c: Connected, args: Record<string, unknown>) => {
  const result = structured(await call(c, "run_shell_command", { timeout: 60, ...args }, { timeout: 20_000 }))
  assert.isDefined(result.blocked_by, JSON.stringify(result))
  return result
}

/** Types text into vi in insert mode, then writes the file and quits. */
const writeAndQuit = (world: TmuxWorld, pane: string, text: string) => {
  keys(world, pane, "i")
  keys(world, pane, "-l", text)
  keys(world, pane, "Escape")
  keys(world, pane, "-l", ":wq")
  keys(world, pane, "Enter")
}

/** Twenty short words: a line that wraps over three rows of a 30-column pane. */
const long = Array.from({ length: 20 }, (_, i) => `w${i}`).join(" ")

const vi = !missingHere("/usr/bin/vi")

describe.concurrent("output_is_screen names the program only for the answers whose rows it showed", () => {
  it.skipIf(!vi)("vi f && cat f: full-screen while vi is up, not for cat's output after it", async () => {
    const { world, c, pane } = await open()
    const first = await blocked(c, { pane_id: pane, command: "vi f && cat f" })
    assert.include(first.output_is_screen, "full-screen")
    // Still up: an answer read while it holds the pane says so.
    const again = await blocked(c, { pane_id: pane, resume: first.run_id })
    assert.include(again.output_is_screen, "full-screen")
    writeAndQuit(world, pane, "hello")
    const last = await resume(c, pane, first.run_id, 15)
    assert.deepInclude(last, { exit_status: 0, output: "hello" })
    assert.isUndefined(last.output_is_screen, JSON.stringify(last))
  }, 60_000)

  it("less -X drew on the main screen: the first answer after it left says pager, the next does not", async () => {
    const { world, c, pane } = await open()
    const paged = await blocked(c, {
      pane_id: pane,
      command: "seq 1 100 | less -X; read -p 'more? ' x; echo done $x"
    })
    assert.deepInclude(paged.blocked_by, { program: "less", kind: "pager" })
    assert.include(paged.output_is_screen, "pager")
    // Another page, drawn after that answer, then quit: those rows are the pager's.
    keys(world, pane, "Space")
    keys(world, pane, "q")
    const asked = await blocked(c, { pane_id: pane, resume: paged.run_id })
    assert.deepInclude(asked.blocked_by, { kind: "prompt" })
    assert.include(asked.output_is_screen, "pager")
    const done = structured(
      await call(c, "run_shell_command", { pane_id: pane, resume: paged.run_id, answer: "y", timeout: 15 })
    )
    assert.deepInclude(done, { exit_status: 0 })
    assert.include(done.output, "done y")
    assert.isUndefined(done.output_is_screen, JSON.stringify(done))
  }, 60_000)
})

describe.concurrent("a row that wraps behind vim in a narrow pane comes once", () => {
  /** A 30-column pane. */
  const narrow = async () => {
    const opened = await open()
    opened.world.tmux("libtmux-mcp", "resize-window", "-t", opened.pane, "-x", "30", "-y", "12")
    return opened
  }

  it.skipIf(!vi)("the answers after the one behind vim go on from where it ended", async () => {
    const { world, c, pane } = await narrow()
    const first = await blocked(c, { pane_id: pane, command: `printf '${long}'; vi f; cat f` })
    assert.strictEqual(first.output, long)
    const during = await blocked(c, { pane_id: pane, resume: first.run_id })
    assert.strictEqual(during.output, "", JSON.stringify(during))
    writeAndQuit(world, pane, "hello there")
    const last = await resume(c, pane, first.run_id, 15)
    // cat's line goes on the row where the long line ended, after it: only what is new.
    assert.deepInclude(last, { exit_status: 0, output: "hello there", output_first_line: "continues" })
  }, 60_000)

  it.skipIf(!vi)("a row rewritten after vim (a carriage return) comes again whole, said to be repeated", async () => {
    const { world, c, pane } = await narrow()
    const first = await blocked(c, { pane_id: pane, command: `printf '${long}'; vi f; printf '\\rXX\\n'` })
    assert.strictEqual(first.output, long)
    writeAndQuit(world, pane, "x")
    const last = await resume(c, pane, first.run_id, 15)
    assert.deepInclude(last, { exit_status: 0, output_first_line: "repeated" })
    // The whole line again, from its first row, with its last row rewritten.
    assert.match(last.output, /^w0 w1 w2 .* w16 w1XXw18 w19$/u, JSON.stringify(last))
  }, 60_000)
})
