/**
 * Where a run's output starts, as reported from the field: output that outgrows or trims the
 * pane's history must not stall the server, and a terminal whose echo is off must never turn
 * earlier history into a run's output.
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { absent, call, type Connected } from "../support/mcp.ts"
import { holdsFor, until } from "../support/poll.ts"
import { run, runHarness } from "../support/runs.ts"
import { missingHere } from "../support/shells.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const { open } = runHarness("start", { inProcess: true })
let typedLines = 0

/**
 * Types a line into the pane by hand (as a person would), bypassing the run protocol, and waits
 * until the shell has run it (the line ends by touching a file in the shell's folder, the world's).
 */
const typeLine = async (world: TmuxWorld, pane: string, line: string) => {
  const done = `typed-${++typedLines}`
  world.tmux("libtmux-mcp", "send-keys", "-t", pane, "-l", `${line}; touch ${done}`)
  world.tmux("libtmux-mcp", "send-keys", "-t", pane, "Enter")
  await until(`the shell in ${pane} to run ${JSON.stringify(line)}`, () => existsSync(join(world.dir, done)))
}

/**
 * Pings the server every 50 ms while `work` runs; a ping not answered within 2 s fails the test
 * (a generous bound on the outcome; bench/long-output.ts measures the latencies).
 */
const answeringPings = async <A>(c: Connected, work: Promise<A>) => {
  await holdsFor(work, "the server answers a ping within 2 s", async () => {
    await c.client.ping({ timeout: 2_000 })
    return true
  }, { intervalMs: 50 })
  return work
}

describe.concurrent("output longer than the pane's history", () => {
  it(
    "60,000 lines of 86 characters: the run answers with the newest lines and the server keeps answering",
    async () => {
      const { c, pane } = await open("/bin/bash")
      await call(c, "resize_pane", { pane_id: pane, width: 120, height: 30 })
      const result = await answeringPings(
        c,
        run(c, pane, "seq -f '%085g' 1 60000", { timeout: 25 })
      )
      assert.deepInclude(result, { exit_status: 0, output_start_lost: true })
      absent(result, "timed_out")
      const lines = (result.output as string).split("\n")
      assert.lengthOf(lines, 1000)
      assert.strictEqual(lines.at(-1), "60000".padStart(85, "0"))
      assert.strictEqual(lines[0], "59001".padStart(85, "0"))
    },
    60_000
  )
})

describe.concurrent("a terminal whose echo is off", () => {
  for (const shell of ["/bin/bash", "/bin/dash", "/usr/bin/zsh", "/usr/bin/fish"]) {
    it.skipIf(missingHere(shell))(
      `returns only the run's own output after stty -echo (${shell})`,
      async () => {
        const { world, c, pane } = await open(shell)
        await typeLine(world, pane, "export TOKEN=secret-4471")
        await typeLine(world, pane, "stty -echo")
        const first = await run(c, pane, "echo hi", { timeout: 10 })
        assert.deepInclude(first, { exit_status: 0, output: "hi" })
        absent(first, "output_start_lost")
        const second = await run(c, pane, "printf 'a\\nb\\n'; false", { timeout: 10 })
        assert.deepInclude(second, { exit_status: 1, output: "a\nb" })
        absent(second, "output_start_lost")
        assert.notInclude(JSON.stringify([first, second]), "secret-4471")
      }
    )
  }

  it("places the output when the history was trimmed under a run, echo on or off", async () => {
    const { world, c, pane } = await open("/bin/bash")
    await call(c, "set_history_limit", { global: true, lines: 1000 })
    const fresh = await call(c, "split_window", { pane_id: pane, start_directory: world.dir })
    const target = (fresh.structuredContent as { pane_id: string }).pane_id
    await until(
      "the new pane's prompt",
      () => world.tmux("libtmux-mcp", "display", "-p", "-t", target, "#{cursor_x}").trim(),
      (x) => x !== "0"
    )
    await typeLine(world, target, "export TOKEN=secret-8812; seq 1 990")
    // The history is nearly full: the run's output trims it, moving its echo up by whole chunks.
    const trimmed = await run(c, target, "seq 1 300", { timeout: 10 })
    const expected = Array.from({ length: 300 }, (_, i) => String(i + 1)).join("\n")
    assert.deepInclude(trimmed, { exit_status: 0, output: expected })
    absent(trimmed, "output_start_lost")
    await typeLine(world, target, "stty -echo")
    const silent = await run(c, target, "seq 1 300", { timeout: 10 })
    assert.deepInclude(silent, { exit_status: 0, output: expected })
    absent(silent, "output_start_lost")
    assert.notInclude(JSON.stringify([trimmed, silent]), "secret-8812")
  })

  it("a run that erases its own echo from the screen returns no text and says where it starts is unknown", async () => {
    const { world, c, pane } = await open("/bin/bash")
    await typeLine(world, pane, "export TOKEN=secret-3310")
    // Cursor to the second row, erase to the end of the screen: the echo is drawn over in place.
    const result = await run(c, pane, "printf '\\033[2;1H\\033[J'; seq 1 5", { timeout: 10 })
    assert.deepInclude(result, { exit_status: 0, output: "", output_start_unknown: true })
    absent(result, "output_start_lost")
    assert.notInclude(JSON.stringify(result), "secret-3310")
  })
})
