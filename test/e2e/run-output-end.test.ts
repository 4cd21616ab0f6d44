/**
 * Where a run's output ends, as reported by a red team: an output longer than the rows read with
 * the run's signal is read back after it, and whatever scrolls the pane in between (a prompt of
 * two lines, a `PROMPT_COMMAND` that prints, a background job) must not cut its last lines; and a
 * run timed out while its program keeps writing returns its recent output, not one line.
 */
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { absent } from "../support/mcp.ts"
import { until } from "../support/poll.ts"
import { run, runHarness } from "../support/runs.ts"
import { missingHere } from "../support/shells.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const { open } = runHarness("end", { inProcess: true })

/** Lengths of output around and far past the rows read with the signal (an 80x24 pane and 100 rows above). */
const lengths = [200, 368, 1000, 2700]
const maxLines = 1000

/** What the answer for `seq 1 n; echo TOK` must be, kept to its newest `maxLines` lines. */
const expected = (n: number) => {
  const all = [...Array.from({ length: n }, (_, i) => String(i + 1)), "TOK"]
  const left = all.slice(0, Math.max(0, all.length - maxLines))
  return {
    output: all.slice(left.length).join("\n"),
    // Counts of nothing, like the flags that are false, are left out of the answer.
    ...(left.length === 0 ? {} : {
      truncated_lines: left.length,
      truncated_bytes: left.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0)
    }),
    exit_status: 0
  }
}

/** The fields at their usual value an answer for `seq 1 n; echo TOK` leaves out. */
const leftOut = (result: unknown, n: number) =>
  absent(
    result,
    "timed_out",
    "output_start_lost",
    "output_start_unknown",
    ...(n + 1 > maxLines ? [] : ["truncated_lines", "truncated_bytes"])
  )

const startupFile = (name: string, body: string) => (world: TmuxWorld) => {
  writeFileSync(join(world.dir, name), `${body}\n`)
}

const zsh = "/usr/bin/zsh"

describe.concurrent("a long output's last lines, whatever scrolls the pane after the run", () => {
  const prompts = [
    { name: "a two-line bash prompt", shell: "/bin/bash", file: startupFile(".profile", "PS1='\\u@\\h\\n\\$ '") },
    { name: "a two-line zsh prompt", shell: zsh, file: startupFile(".zshrc", "PROMPT=$'%n@%m\\n%# '") },
    {
      name: "a PROMPT_COMMAND that prints",
      shell: "/bin/bash",
      file: startupFile(".profile", "PROMPT_COMMAND='echo ---'")
    }
  ]
  for (const prompt of prompts) {
    it.skipIf(missingHere(prompt.shell))(
      `${prompt.name}: TOK is the last line and every line is there`,
      async () => {
        const { c, pane } = await open(prompt.shell, {}, prompt.file)
        for (const n of lengths) {
          const result = await run(c, pane, `seq 1 ${n}; echo TOK`, { timeout: 20 })
          assert.deepInclude(result, expected(n), `seq 1 ${n}`)
          leftOut(result, n)
          leftOut(result, n)
          assert.notProperty(result, "truncated_at_least")
        }
      },
      60_000
    )
  }

  it("a background job printing right after the run: TOK is the last line and every line is there", async () => {
    const { world, c, pane } = await open("/bin/bash")
    let jobs = 0
    for (const n of lengths) {
      const done = `job-${++jobs}`
      // The job starts printing once the run's status report released the pane, and prints while
      // the answer is read back; the next run waits for it to finish.
      const job = `(until [ -z "$(tmux show -pqv -t "$TMUX_PANE" @lmcp_claim)" ]; do sleep 0.005; done; ` +
        `for i in $(seq 1 40); do echo job-$i; sleep 0.01; done; touch ${done}) &`
      const result = await run(c, pane, `seq 1 ${n}; echo TOK; ${job}`, { timeout: 20 })
      assert.deepInclude(result, expected(n), `seq 1 ${n}`)
      leftOut(result, n)
      assert.notProperty(result, "truncated_at_least")
      await until(`background job ${jobs} to finish`, () => existsSync(join(world.dir, done)))
    }
  }, 90_000)
})

describe.concurrent("a run timed out while its program keeps writing", () => {
  it("returns its recent output, a screen's worth or more, not one line", async () => {
    const { c, pane } = await open("/bin/bash")
    const result = await run(c, pane, "yes", { timeout: 2 })
    assert.deepInclude(result, { timed_out: true, exit_status: null })
    const lines = (result.output as string).split("\n")
    assert.isAtLeast(lines.length, 24, `${lines.length} lines`)
    // Only what `yes` writes, and no row cut short.
    assert.deepEqual([...new Set(lines)], ["y"])
  })
})
