/**
 * run_shell_command against real shells in real tmux panes, through the SDK client: exact output,
 * exit status, history, timeouts that leave nothing behind, refusals, cancellation, progress.
 */
import { execFileSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { absent, call, structured, textOf } from "../support/mcp.ts"
import { running, until, waiterOf } from "../support/poll.ts"
import { leftovers, resume, run, runHarness } from "../support/runs.ts"
import { missingHere } from "../support/shells.ts"
import { paneShows, type TmuxWorld } from "../support/tmux.ts"

const { open } = runHarness("run", { inProcess: true })
// For the test that looks at the server's own child processes.
const bin = runHarness("run")

describe.concurrent("output and status", () => {
  it("returns exactly the command's output and exit status, back to back in one pane", async () => {
    const { world, c, pane } = await open()
    const hello = await run(c, pane, "echo hello; echo world")
    assert.deepInclude(hello, { output: "hello\nworld", exit_status: 0, shell: "bash" })
    absent(hello, "timed_out", "output_from", "output_start_lost", "truncated_lines", "effective_timeout")
    assert.deepInclude(await run(c, pane, "printf 'no newline'"), { output: "no newline", exit_status: 0 })
    assert.deepInclude(await run(c, pane, "false"), { output: "", exit_status: 1 })
    assert.deepInclude(await run(c, pane, "echo out; exit 7"), { output: "out", exit_status: 7 })
    assert.deepInclude(await run(c, pane, "printf 'a\\n\\nb\\n'"), { output: "a\n\nb" })
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("keeps lines that scrolled into history, joins wrapped lines, handles unicode and wide characters", async () => {
    const { c, pane } = await open()
    const many = await run(c, pane, "seq 1 300")
    assert.strictEqual(many.output, Array.from({ length: 300 }, (_, i) => String(i + 1)).join("\n"))
    const long = "x".repeat(200)
    assert.strictEqual((await run(c, pane, `echo ${long}`)).output, long)
    assert.strictEqual((await run(c, pane, "echo 'héllo 日本語 ✓'; printf '漢字'")).output, "héllo 日本語 ✓\n漢字")
  })

  it("runs several lines, keeps the pane's terminal, and leaves the caller's shell variables alone", async () => {
    const { c, pane } = await open()
    await run(c, pane, "true")
    assert.strictEqual((await run(c, pane, "s=keep; echo set")).output, "set")
    const tty = await run(c, pane, "if [ -t 1 ]; then echo tty; fi\nx=1\necho $((x + 1))")
    assert.strictEqual(tty.output, "tty\n2")
    assert.strictEqual((await run(c, pane, "echo ${s:-unset}")).output, "unset")
  })

  it("preserves the tail under max_lines and max_bytes with explicit counts", async () => {
    const { c, pane } = await open()
    const result = await run(c, pane, "seq 1 50", { max_lines: 5 })
    assert.deepInclude(result, { output: "46\n47\n48\n49\n50", truncated_lines: 45 })
    const bytes = await run(c, pane, "seq 1 50", { max_bytes: 5 })
    assert.deepInclude(bytes, { output: "49\n50" })
    assert.isAbove(bytes.truncated_lines, 0)
  })

  it("returns a 400 kB output whole when the bounds allow it (the result is bound at 480,000 characters)", async () => {
    const { c, pane } = await open()
    const result = await run(c, pane, "head -c 400000 /dev/zero | tr '\\0' x | fold -w 100", {
      max_lines: 100000,
      max_bytes: 4194304
    })
    const lines = (result.output as string).split("\n")
    assert.strictEqual(lines.length, 4000)
    assert.isTrue(lines.every((line) => line === "x".repeat(100)))
    absent(result, "truncated_lines")
  })
})

describe.concurrent("timeouts", () => {
  it(
    "returns partial output and a run_id on timeout; resume returns " +
      "the real status and the output after that answer, then nothing is left",
    async () => {
      const { world, c, pane } = await open()
      const result = await run(c, pane, "echo begun; sleep 2; echo finished; exit 3", { timeout: 1 })
      assert.deepInclude(result, { timed_out: true, exit_status: null, output: "begun" })
      // The timeout used is the one asked for: said only when the ceiling cut it.
      absent(result, "effective_timeout")
      assert.match(result.run_id, /^[0-9a-f]{6}$/u)
      const resumed = await resume(c, pane, result.run_id, 10)
      assert.deepInclude(resumed, { exit_status: 3, output: "finished", output_from: "previous_answer" })
      absent(resumed, "timed_out")
      assert.notProperty(resumed, "run_id")
      assert.deepStrictEqual(leftovers(world, pane), [])
      const latched = (() => {
        try {
          execFileSync("timeout", [
            "1",
            "tmux",
            "-S",
            world.socketPath("libtmux-mcp"),
            "wait-for",
            `lmcp_${result.run_id}`
          ])
          return true
        } catch {
          return false
        }
      })()
      assert.isFalse(latched, "a collected run must not leave its channel latched")
      assert.deepInclude(await run(c, pane, "echo next"), { output: "next", exit_status: 0 })
    }
  )

  it("resumes a run that already finished at once, and one that times out again with the same run_id", async () => {
    const { world, c, pane } = await open()
    // The run ends when the test says so, however slow the machine.
    const gate = join(world.dir, "go")
    const first = await run(c, pane, `until [ -e ${shellQuote(gate)} ]; do sleep 0.05; done; echo done`, {
      timeout: 0.5
    })
    const again = await resume(c, pane, first.run_id, 0.3)
    assert.deepInclude(again, { timed_out: true, run_id: first.run_id, exit_status: null })
    writeFileSync(gate, "")
    await until(
      "the run to finish",
      async () => (structured(await call(c, "get_server_info")).held_runs ?? []),
      (held) => held.some((run: any) => run.run_id === first.run_id && run.exit_status !== null)
    )
    // A finished run answers at once: well within a request bound a third of its 30 s timeout.
    const finished = structured(
      await call(c, "run_shell_command", { pane_id: pane, resume: first.run_id, timeout: 30 }, { timeout: 10_000 })
    )
    assert.deepInclude(finished, { exit_status: 0, output: "done" })
  })

  it("clamps a timeout above the ceiling and reports the value used", async () => {
    const { c, pane } = await open("/bin/bash", { LIBTMUX_MCP_WAIT_MAX_SECONDS: "2" })
    const result = await run(c, pane, "echo quick", { timeout: 100 })
    assert.deepInclude(result, { effective_timeout: 2, output: "quick" })
  })

  it("rejects a zero, negative or non-numeric timeout before typing anything", async () => {
    const { c, pane } = await open()
    for (const timeout of [0, -1, "5"]) {
      const result = await call(c, "run_shell_command", { pane_id: pane, command: "echo x", timeout })
      assert.isTrue(result.isError, String(timeout))
      assert.include(textOf(result), "timeout")
    }
  })
})

describe.concurrent("refusals", () => {
  it("refuses a pane in copy mode, naming what is in the way", async () => {
    const { world, c, pane } = await open()
    await run(c, pane, "true")
    world.tmux("libtmux-mcp", "copy-mode", "-t", pane)
    const result = await call(c, "run_shell_command", { pane_id: pane, command: "echo no" })
    assert.isTrue(result.isError)
    assert.strictEqual(result._meta?.["com.git-pull.libtmux-mcp/error"], "PaneNotReady")
    assert.include(textOf(result), "copy mode")
  })

  it("refuses a full-screen program and a foreground program, and an unsupported shell", async () => {
    const { world, c, pane } = await open()
    await run(c, pane, "true")
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "sleep 30", "Enter")
    await paneShows(world, pane, "#{pane_current_command}", (command) => command === "sleep")
    // A fresh pane's shell may still be starting: it is waited for within the timeout, then refused.
    const busy = await call(c, "run_shell_command", { pane_id: pane, command: "echo no", timeout: 1 })
    assert.include(textOf(busy), "sleep is running in the foreground")
    assert.include(textOf(busy), "nothing was typed")
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "C-c")
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "less /etc/passwd", "Enter")
    await paneShows(world, pane, "#{alternate_on}", (on) => on === "1")
    const screen = await call(c, "run_shell_command", { pane_id: pane, command: "echo no" })
    assert.include(textOf(screen), "alternate screen")
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "q")
    await paneShows(world, pane, "#{alternate_on} #{pane_current_command}", (shown) => shown === "0 bash")
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "exec python3 -q", "Enter")
    await paneShows(world, pane, "#{pane_current_command}", (command) => command.startsWith("python"))
    const python = await call(c, "run_shell_command", { pane_id: pane, command: "echo no" })
    assert.include(textOf(python), "cannot drive")
  })

  it("refuses an empty command or one with control characters", async () => {
    const { c, pane } = await open()
    for (const command of ["   ", "echo \u0003"]) {
      const result = await call(c, "run_shell_command", { pane_id: pane, command })
      assert.isTrue(result.isError)
      assert.strictEqual(result._meta?.["com.git-pull.libtmux-mcp/error"], "InputInvalid")
    }
  })
})

/** The run that holds a pane, as its option says; empty when none does. */
const claimOf = (world: TmuxWorld, pane: string) =>
  world.tmux("libtmux-mcp", "show-options", "-pqv", "-t", pane, "@lmcp_claim").trim()

describe.concurrent("cancellation and progress", () => {
  it("stops waiting at once on cancellation, kills its wait-for child, and keeps the run for resume", async () => {
    const { world, c, pane } = await bin.open()
    // The command ends when the test opens its gate, not after a time a loaded machine may pass.
    const gate = join(world.dir, "gate")
    const controller = new AbortController()
    const pending = c.client.callTool(
      {
        name: "run_shell_command",
        arguments: { pane_id: pane, command: `until [ -e ${shellQuote(gate)} ]; do sleep 0.05; done; echo slept` }
      },
      undefined,
      { signal: controller.signal }
    )
    const waiter = await waiterOf(c.pid?.(), /^lmcp_/u)
    // The waiting client exists a moment before tmux runs its list: cancelled then, nothing is typed.
    await until("the run to claim the pane", () => claimOf(world, pane), (claim) => claim !== "")
    controller.abort()
    await pending.catch(() => undefined)
    // The wait-for child goes though the command still runs.
    await until("the run's wait-for child to go", () => running(waiter), (alive) => !alive, { timeoutMs: 2_500 })
    const refused = await call(c, "run_shell_command", { pane_id: pane, command: "echo no", timeout: 0.5 })
    assert.strictEqual(refused._meta?.["com.git-pull.libtmux-mcp/error"], "PaneNotReady")
    const runId = /run ([0-9a-f]{6})/u.exec(textOf(refused))![1]!
    writeFileSync(gate, "")
    assert.deepInclude(await resume(c, pane, runId, 10), { exit_status: 0, output: "slept" })
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("reports progress about once a second when asked", async () => {
    const { c, pane } = await open()
    const reports: Array<number> = []
    await c.client.callTool(
      { name: "run_shell_command", arguments: { pane_id: pane, command: "sleep 2.5" } },
      undefined,
      {
        onprogress: (progress) => void reports.push(progress.progress),
        timeout: 20_000
      }
    )
    assert.isAtLeast(reports.length, 2)
    assert.isAtMost(reports.length, 4)
  })
})

describe.concurrent("shells", () => {
  for (const shell of ["/bin/bash", "/usr/bin/zsh", "/bin/dash", "/usr/bin/fish"]) {
    // CI installs every shell; elsewhere a missing one is skipped, not failed.
    it.skipIf(missingHere(shell))(`drives ${shell}`, async () => {
      const { world, c, pane } = await open(shell)
      const first = await run(c, pane, "echo one; echo two; false")
      assert.deepInclude(first, { output: "one\ntwo", exit_status: 1 })
      absent(first, "timed_out")
      assert.deepInclude(await run(c, pane, "printf 'x%sy' 1"), { output: "x1y", exit_status: 0 })
      assert.deepInclude(await run(c, pane, "seq 1 40 | tail -n 2"), { output: "39\n40" })
      assert.deepStrictEqual(leftovers(world, pane), [])
    })
  }
})
