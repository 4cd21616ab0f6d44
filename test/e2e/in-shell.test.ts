/**
 * A terminal, not an exec: in_shell keeps the shell's state (a venv, cd, export, functions) for
 * later runs; an in-shell exit is its own outcome, a set -e it leaves does not end the shell at a
 * later run, and an in-shell read is a run waiting for input, not the shell back at its prompt; in
 * bash, zsh, dash and fish. Resume returns what is new, and capture_pane agrees with
 * run_shell_command on the bytes.
 */
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { absent, call, type Connected, structured, textOf } from "../support/mcp.ts"
import { leftovers, resume, run, runHarness } from "../support/runs.ts"
import { missingHere, shellEnv } from "../support/shells.ts"

const h = runHarness("inshell", { inProcess: true })
// Two servers on one socket are two processes (an in-process pair would share one process ID).
const bin = runHarness("inshell")
const { open } = h

const keys = (c: Connected, pane: string, text: string) =>
  call(c, "send_keys", { pane_id: pane, keys: text, enter: true })

describe.concurrent("in_shell keeps the shell's state", () => {
  it("a venv activated in the shell is the python of a later default run", async () => {
    const { world, c, pane } = await open()
    const made = await run(
      c,
      pane,
      `cd ${shellQuote(world.dir)} && python3 -m venv --without-pip v && . v/bin/activate`,
      {
        in_shell: true,
        timeout: 60
      }
    )
    assert.deepInclude(made, { exit_status: 0, output: "" })
    const prefix = await run(c, pane, "python3 -c 'import sys; print(sys.prefix)'")
    assert.deepInclude(prefix, { exit_status: 0, output: join(world.dir, "v") })
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("cd, export and functions persist; a default run's cd does not", async () => {
    const { world, c, pane } = await open()
    await run(c, pane, "cd /tmp && export KEPT=yes && greet() { echo hello $1; }", { in_shell: true })
    assert.deepInclude(await run(c, pane, "pwd; echo $KEPT; greet you"), {
      exit_status: 0,
      output: "/tmp\nyes\nhello you"
    })
    await run(c, pane, "cd /")
    assert.strictEqual((await run(c, pane, "pwd")).output, "/tmp")
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("exit 3 in the shell says the shell exited with 3, leaves the pane dead, its options as they were", async () => {
    const { world, c, pane } = await open()
    const ended = await run(c, pane, "echo bye; exit 3", { in_shell: true, timeout: 10 })
    assert.deepInclude(ended, { exit_status: null })
    absent(ended, "timed_out")
    // What the terminal shows: bash, a login shell here, says logout as it exits.
    assert.strictEqual(ended.output, "bye\nlogout")
    assert.deepStrictEqual(ended.shell_exited, { exit_status: 3 })
    assert.notProperty(ended, "run_id")
    assert.strictEqual(world.tmux("libtmux-mcp", "display", "-p", "-t", pane, "#{pane_dead}").trim(), "1")
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("a set -e left in the shell does not end it when a later default run fails, and stays on", async () => {
    const { world, c, pane } = await open()
    assert.deepInclude(await run(c, pane, "set -e", { in_shell: true }), { exit_status: 0 })
    assert.deepInclude(await run(c, pane, "false"), { exit_status: 1, output: "" })
    assert.deepInclude(await run(c, pane, "set -e; false; echo x"), { exit_status: 1, output: "" })
    assert.deepInclude(await run(c, pane, "case $- in *e*) echo on;; esac", { in_shell: true }), {
      exit_status: 0,
      output: "on"
    })
    assert.strictEqual(world.tmux("libtmux-mcp", "display", "-p", "-t", pane, "#{pane_dead}").trim(), "0")
    // A respawned pane's new shell has no set -e: later runs do not turn it on.
    assert.notStrictEqual((await call(c, "respawn_pane", { pane_id: pane })).isError, true)
    assert.deepInclude(await run(c, pane, "false"), { exit_status: 1 })
    assert.deepInclude(await run(c, pane, "case $- in *e*) echo on;; *) echo off;; esac", { in_shell: true }), {
      output: "off"
    })
  })

  it("set -e; false; echo x as a default command keeps its meaning", async () => {
    const { c, pane } = await open()
    assert.deepInclude(await run(c, pane, "set -e; false; echo x"), { exit_status: 1, output: "" })
  })
})

/** How each shell prompts and reads a line into `v`. */
const reads: Record<string, string> = {
  "/bin/bash": "read -p 'name? ' v",
  "/usr/bin/zsh": "read 'v?name? '",
  "/bin/dash": "read -p 'name? ' v",
  "/usr/bin/fish": "read -P 'name? ' v"
}

describe.concurrent("in_shell in each shell", () => {
  for (const [shell, read] of Object.entries(reads)) {
    // CI installs every shell; elsewhere a missing one is skipped, not failed.
    it.skipIf(missingHere(shell))(
      `${shell}: state persists, a read waits for its answer, exit ends the shell`,
      async () => {
        const { world, c, pane } = await open(shell)
        const exported = shell.endsWith("fish") ? "cd /tmp; set -gx KEPT yes" : "cd /tmp && export KEPT=yes"
        await run(c, pane, exported, { in_shell: true })
        assert.deepInclude(await run(c, pane, "pwd; echo $KEPT"), { exit_status: 0, output: "/tmp\nyes" })
        const asked = await run(c, pane, read, { in_shell: true, timeout: 20 })
        assert.deepInclude(asked, { exit_status: null, output: "name? " })
        absent(asked, "timed_out")
        assert.deepInclude(asked.blocked_by, { program: shell.split("/").at(-1), kind: "prompt" })
        await keys(c, pane, "Ada")
        // The rest of the row the blocked answer ended within: the prompt is not returned again.
        assert.deepInclude(await resume(c, pane, asked.run_id, 10), {
          exit_status: 0,
          output: "Ada",
          output_first_line: "continues"
        })
        assert.deepInclude(await run(c, pane, "echo $v"), { exit_status: 0, output: "Ada" })
        assert.deepStrictEqual(leftovers(world, pane), [])
        if (!shell.endsWith("fish")) {
          // fish has no errexit; the others keep it on, and a later default run's failure leaves the shell.
          await run(c, pane, "set -e", { in_shell: true })
          assert.deepInclude(await run(c, pane, "false"), { exit_status: 1 })
          assert.deepInclude(await run(c, pane, "set -e; false; echo x"), { exit_status: 1, output: "" })
        }
        const ended = await run(c, pane, "exit 3", { in_shell: true, timeout: 10 })
        assert.deepStrictEqual(ended.shell_exited, { exit_status: 3 })
      }
    )
  }
})

describe.concurrent("an in-shell read is the run waiting, not the shell at its prompt", () => {
  it("a new run waits behind it and is refused naming it, nothing cancels the read", async () => {
    const { c, pane } = await open()
    const asked = await run(c, pane, "read -p 'name? ' v", { in_shell: true, timeout: 20 })
    assert.deepInclude(asked.blocked_by, { program: "bash", kind: "prompt" })
    const refused = await call(c, "run_shell_command", { pane_id: pane, command: "echo no", timeout: 1.5 })
    assert.strictEqual(refused._meta?.["com.git-pull.libtmux-mcp/error"], "PaneNotReady")
    assert.include(textOf(refused), asked.run_id)
    await keys(c, pane, "Ada")
    assert.deepInclude(await resume(c, pane, asked.run_id, 10), { exit_status: 0, output: "Ada" })
    assert.deepInclude(await run(c, pane, "echo $v"), { output: "Ada" })
  })

  it("an in-shell run interrupted back to its prompt (showing another directory) resumes as such", async () => {
    const { world, c, pane } = await open(
      "/bin/bash",
      {},
      (w) => writeFileSync(join(w.dir, ".profile"), "PS1='me:\\w$ '\n")
    )
    const asked = await run(c, pane, "cd /tmp && read -p 'name? ' v", { in_shell: true, timeout: 20 })
    assert.deepInclude(asked.blocked_by, { program: "bash", kind: "prompt" })
    await call(c, "send_keys", { pane_id: pane, keys: "C-c", literal: false, enter: false })
    const interrupted = await call(c, "run_shell_command", { pane_id: pane, resume: asked.run_id, timeout: 10 })
    assert.strictEqual(interrupted._meta?.["com.git-pull.libtmux-mcp/error"], "RunUnreported")
    assert.deepInclude(await run(c, pane, "echo next"), { exit_status: 0, output: "next" })
    assert.deepStrictEqual(leftovers(world, pane), [])
  })
})

describe.concurrent("resume returns what is new", () => {
  it("three resumes of a 12 s build return each line once, saying where they start; whole_output all", async () => {
    const { world, c, pane } = await open()
    const build = "for i in $(seq 1 12); do echo step $i; sleep 1; done; echo built"
    const answers = [await run(c, pane, build, { timeout: 2.5 })]
    for (let i = 0; i < 3; i++) answers.push(await resume(c, pane, answers[0]!.run_id, 2.5))
    assert.isTrue(answers.every((answer) => answer.timed_out === true))
    answers.push(await resume(c, pane, answers[0]!.run_id, 20))
    assert.deepInclude(answers.at(-1), { exit_status: 0 })
    absent(answers.at(-1), "timed_out")
    // output_from is left out at its usual value, the run's start.
    assert.deepStrictEqual(answers.map((answer) => answer.output_from ?? "start"), [
      "start",
      "previous_answer",
      "previous_answer",
      "previous_answer",
      "previous_answer"
    ])
    const lines = answers.flatMap((answer) => (answer.output as string).split("\n")).filter((line) => line !== "")
    assert.deepStrictEqual(lines, [...Array.from({ length: 12 }, (_, i) => `step ${i + 1}`), "built"])
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("another server instance's resume starts after what the first instance returned", async () => {
    const { world, c, pane } = await bin.open()
    const first = await run(c, pane, "echo one; sleep 1.5; echo two", { timeout: 0.7 })
    assert.deepInclude(first, { output: "one" })
    absent(first, "output_from")
    const other = await bin.connect(world, shellEnv(world, "/bin/bash"))
    assert.deepInclude(await resume(other, pane, first.run_id, 10), {
      exit_status: 0,
      output: "two",
      output_from: "previous_answer"
    })
  })

  it("whole_output returns the run's output from its start", async () => {
    const { c, pane } = await open()
    const first = await run(c, pane, "echo one; sleep 1.5; echo two", { timeout: 0.7 })
    assert.strictEqual(first.output, "one")
    const whole = structured(
      await call(c, "run_shell_command", { pane_id: pane, resume: first.run_id, timeout: 10, whole_output: true })
    )
    assert.deepInclude(whole, { exit_status: 0, output: "one\ntwo" })
    absent(whole, "output_from")
  })
})

describe.concurrent("bytes, stated and consistent", () => {
  it("capture_pane keeps the trailing spaces run_shell_command returns", async () => {
    const { c, pane } = await open()
    const printed = await run(c, pane, "printf 'a\\tb  \\n\\360\\237\\231\\202 \\344\\270\\255\\346\\226\\207\\n'")
    assert.strictEqual(printed.output, "a       b  \n🙂 中文")
    const screen = structured(await call(c, "capture_pane", { pane_id: pane })).content as string
    assert.include(screen.split("\n"), "a       b  ")
  })
})
