/**
 * No row twice: a resume after an answer that ended within a row returns only what came after it,
 * the rest of that row included, in cells (wide characters, rows that wrap on); a row whose cells
 * before that answer's end were rewritten (a line redrawn after a carriage return) comes again
 * whole, and the answer says so. The commands wait on a file, not on the clock.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { absent, call, structured } from "../support/mcp.ts"
import { resume, run, runHarness } from "../support/runs.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const { open } = runHarness("rows", { inProcess: true })

/** Shell text that waits until the file `name` exists in the shell's folder. */
const gate = (name: string) => `until [ -e ${name} ]; do sleep 0.05; done`
const release = (world: TmuxWorld, name: string) => writeFileSync(join(world.dir, name), "")

describe.concurrent("a resume after an answer that ended within a row", () => {
  it("returns the rest of the row, not the row again: abc, then def", async () => {
    const { world, c, pane } = await open()
    const first = await run(c, pane, `printf 'abc'; ${gate("go")}; printf 'def\\n'`, { timeout: 1 })
    assert.deepInclude(first, { timed_out: true, output: "abc" })
    absent(first, "output_from")
    release(world, "go")
    const rest = await resume(c, pane, first.run_id as string, 15)
    assert.deepInclude(rest, {
      exit_status: 0,
      output: "def",
      output_from: "previous_answer",
      output_first_line: "continues"
    })
  })

  it("says nothing of the first line when lines before it were left out (max_lines)", async () => {
    const { world, c, pane } = await open()
    const first = await run(c, pane, `printf 'abc'; ${gate("go")}; printf 'def\\nl2\\nl3\\n'`, { timeout: 1 })
    assert.deepInclude(first, { timed_out: true, output: "abc" })
    release(world, "go")
    const last = structured(
      await call(c, "run_shell_command", { pane_id: pane, resume: first.run_id, timeout: 15, max_lines: 1 })
    )
    assert.deepInclude(last, { exit_status: 0, output: "l3", output_from: "previous_answer", truncated_lines: 2 })
    assert.notProperty(last, "output_first_line")
  })

  it("counts cells: a prompt of wide characters, and a line that wraps on past the pane's width", async () => {
    const { world, c, pane } = await open()
    const long = "x".repeat(85)
    const first = await run(
      c,
      pane,
      `echo ok; printf '名前? '; ${gate("one")}; printf '太郎\\n${long}'; ${gate("two")}; printf 'yz\\n'`,
      { timeout: 1 }
    )
    assert.deepInclude(first, { timed_out: true, output: "ok\n名前? " })
    release(world, "one")
    const second = await resume(c, pane, first.run_id as string, 1)
    assert.deepInclude(second, { timed_out: true, output: `太郎\n${long}`, output_first_line: "continues" })
    release(world, "two")
    const third = await resume(c, pane, first.run_id as string, 15)
    assert.deepInclude(third, { exit_status: 0, output: "yz", output_first_line: "continues" })
  })

  it("a progress line redrawn after a carriage return comes again whole, said to be repeated", async () => {
    const { world, c, pane } = await open()
    const first = await run(c, pane, `echo ok; printf ' 50%%'; ${gate("go")}; printf '\\r 75%%\\n'`, { timeout: 1 })
    assert.deepInclude(first, { timed_out: true, output: "ok\n 50%" })
    release(world, "go")
    const again = await resume(c, pane, first.run_id as string, 15)
    assert.deepInclude(again, {
      exit_status: 0,
      output: " 75%",
      output_from: "previous_answer",
      output_first_line: "repeated"
    })
  })

  it("an answer that ended at a row's start: the next begins a line of its own (no output_first_line)", async () => {
    const { world, c, pane } = await open()
    const first = await run(c, pane, `echo one; ${gate("go")}; echo two`, { timeout: 1 })
    assert.deepInclude(first, { timed_out: true, output: "one" })
    release(world, "go")
    const next = await resume(c, pane, first.run_id as string, 15)
    assert.deepInclude(next, { exit_status: 0, output: "two", output_from: "previous_answer" })
    assert.notProperty(next, "output_first_line")
  })
})
