/**
 * A test's fish pane keeps fish's runtime folder (its universal-variable notifier) in the test's world.
 * Without XDG_RUNTIME_DIR fish makes `/tmp/fish.<user>`, whatever TMPDIR says, and the test run would
 * leave it there; the servers' environments carry no XDG_RUNTIME_DIR (their lock folder is tested
 * without one), so the panes get theirs from the world's tmux configuration (support/shells.ts).
 */
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, it } from "vitest"
import { until } from "../support/poll.ts"
import { runHarness } from "../support/runs.ts"
import { missingHere } from "../support/shells.ts"

const h = runHarness("fishrt", { inProcess: true })

/** The variables a process started with, from /proc. */
const environmentOf = (pid: number): Record<string, string> =>
  Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter((entry) => entry.includes("=")).map((entry) => {
      const at = entry.indexOf("=")
      return [entry.slice(0, at), entry.slice(at + 1)]
    })
  )

it.skipIf(missingHere("/usr/bin/fish"))("a fish pane keeps its runtime folder in the world, not in /tmp", async () => {
  const { world, pane } = await h.open("/usr/bin/fish")
  const pid = Number(world.tmux("libtmux-mcp", "display-message", "-p", "-t", pane, "#{pane_pid}").trim())
  const runtime = environmentOf(pid).XDG_RUNTIME_DIR
  assert.isDefined(runtime, "the pane's fish has an XDG_RUNTIME_DIR")
  assert.isTrue(runtime!.startsWith(`${world.dir}/`), runtime)
  // fish took it: its notifier is there once the prompt is up.
  await until(
    "fish's notifier in its runtime folder",
    () => existsSync(join(runtime!, "fish_universal_variables.notifier"))
  )
})
