/**
 * A run that ends as its call times out (issue 58, finding 1): the timeout's look is the first to
 * see the run's end (its waiting client and the watcher's looks are late, as on a loaded machine).
 * The answer is the run's own, from its start: never an empty output "since the previous answer"
 * that no call returned.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { call, structured, textOf } from "../support/mcp.ts"
import { until } from "../support/poll.ts"
import { lateReadsTmux, run, runHarness } from "../support/runs.ts"

const { open } = runHarness("edge", { inProcess: true })

describe("a run that ends as its call times out", () => {
  it("answers its whole output and status, from the start", async () => {
    // The waiting client reads 5 s after the run's signal, the watcher's looks at its end 1.5 s late.
    const { c, pane } = await open(
      "/bin/bash",
      {},
      (world, env) => lateReadsTmux(world, env, { readLate: 5, endLate: 1.5 })
    )
    const result = await run(c, pane, "sleep 0.3; echo TOKEN-58", { timeout: 1.2 })
    assert.deepInclude(result, { exit_status: 0, output: "TOKEN-58" }, JSON.stringify(result))
    assert.notProperty(result, "output_from")
    assert.notProperty(result, "run_id")
  })

  it("a run interrupted after a timed-out answer: the line it printed since is in its RunUnreported", async () => {
    const { world, c, pane } = await open(
      "/bin/bash",
      {},
      (world) => writeFileSync(join(world.dir, ".profile"), "PS1='$ '\n")
    )
    const first = await run(c, pane, "until [ -e go ]; do sleep 0.05; done; echo LINE-58; sleep 60", { timeout: 1 })
    assert.deepInclude(first, { timed_out: true, output: "" }, JSON.stringify(first))
    writeFileSync(join(world.dir, "go"), "")
    await until(
      "the line on the pane",
      async () => structured(await call(c, "capture_pane", { pane_id: pane })).content as string,
      // The line itself, not the command's echo (`echo LINE-58`), which is there from the start.
      (content) => content.split("\n").includes("LINE-58")
    )
    await call(c, "send_keys", { pane_id: pane, keys: "C-c", literal: false })
    const answer = await call(c, "run_shell_command", { pane_id: pane, resume: first.run_id, timeout: 10 })
    assert.strictEqual(answer._meta?.["com.git-pull.libtmux-mcp/error"], "RunUnreported", textOf(answer))
    assert.include(textOf(answer), "LINE-58", textOf(answer))
  })
})
