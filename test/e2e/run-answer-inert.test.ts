/**
 * An answer never runs in the shell (issue 58, findings 2, 4 and 11): an answer is one line of text
 * (control characters refused, nothing typed); what a program that stopped reading left unread of an
 * answer is discarded before the shell reads again; one call stops a working run (interrupt, or
 * answer_key C-c) and answers with what it printed.
 */
import { chmodSync, existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { absent, call, structured, textOf } from "../support/mcp.ts"
import { until } from "../support/poll.ts"
import { run, runHarness } from "../support/runs.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const { open } = runHarness("inert", { inProcess: true })

const tag = (result: { readonly _meta?: Record<string, unknown> | undefined }) =>
  result._meta?.["com.git-pull.libtmux-mcp/error"]

/**
 * Waits until the pane shows the `^C` of the answered run's trailer: the terminal has taken it (its
 * discard is done) before the next run is typed. The kernel takes it a moment after the trailer's
 * client returned (docs/control-loop.md); a shell already back at its prompt then draws a fresh one.
 */
const interruptShown = (world: TmuxWorld, pane: string) =>
  until(
    "the ^C the answered run's trailer sent, on the pane",
    () => world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", pane),
    (screen) => screen.includes("^C")
  )

/** The server's tmux as a wrapper under which an answer's list reaches tmux 3 s late. */
const lateAnswers = (world: TmuxWorld, env: Readonly<Record<string, string>>) => {
  const wrapper = join(world.dir, "late-answer-tmux")
  writeFileSync(
    wrapper,
    ["#!/bin/sh", `case "$*" in *lmcp-answer-refused*) sleep 3;; esac`, `exec tmux "$@"`, ""].join("\n")
  )
  // The wrapper delays a forked client; over the control connection the answer would not wait.
  chmodSync(wrapper, 0o755)
  ;(env as Record<string, string>).LIBTMUX_TMUX_BIN = wrapper
  ;(env as Record<string, string>).LIBTMUX_TRANSPORT = "spawn"
}

describe.concurrent("an answer never runs in the shell", () => {
  it("an answer holding a newline, C-d or a paste's end is refused, and nothing is typed", async () => {
    const { world, c, pane } = await open()
    const mark = join(world.dir, "MARK-nl")
    const asked = await run(c, pane, "read -p 'ans? ' x; echo \"got=[$x]\"", { timeout: 10 })
    assert.deepInclude(asked.blocked_by, { program: "bash", kind: "prompt" })
    for (const text of [`ok\ntouch ${shellQuote(mark)}`, "ok\u0004", "ok\u001b[201~", "ok\r"]) {
      const refused = await call(c, "run_shell_command", { pane_id: pane, resume: asked.run_id, answer: text })
      assert.strictEqual(tag(refused), "InputInvalid", textOf(refused))
      assert.include(textOf(refused), "answer is one line of text: it holds a control character")
    }
    const answered = structured(
      await call(c, "run_shell_command", { pane_id: pane, resume: asked.run_id, answer: "fine", timeout: 10 })
    )
    assert.deepInclude(answered, { exit_status: 0 })
    assert.include(answered.output, "got=[fine]")
    assert.isFalse(existsSync(mark))
  })

  it("an answer its program stopped reading for as it came is discarded, not run by the shell", async () => {
    const { world, c, pane } = await open("/bin/bash", {}, lateAnswers)
    const mark = join(world.dir, "MARK-late")
    // The read gives up 3 s in; the answer, seen waiting, reaches tmux after that, while bash, still in
    // front, waits for its child.
    const asked = await run(c, pane, "read -t 3 -p 'ans? ' x; echo \"got=[$x]\"; sleep 5 & wait", { timeout: 10 })
    assert.deepInclude(asked.blocked_by, { program: "bash", kind: "prompt" })
    const answered = structured(
      await call(c, "run_shell_command", {
        pane_id: pane,
        resume: asked.run_id,
        answer: `touch ${shellQuote(mark)}`,
        timeout: 20
      })
    )
    assert.deepInclude(answered, { exit_status: 0 })
    assert.include(answered.output, "got=[]")
    await interruptShown(world, pane)
    // The shell is at its prompt and has read what the terminal held: a run after it finds nothing run.
    assert.deepInclude(await run(c, pane, "echo next", { timeout: 20 }), { exit_status: 0, output: "next" })
    assert.isFalse(existsSync(mark), "the unread answer ran in the shell")
  })

  it("the unread answer is discarded even when a person put the pane in copy mode meanwhile", async () => {
    const { world, c, pane } = await open("/bin/bash", {}, lateAnswers)
    const mark = join(world.dir, "MARK-mode")
    const asked = await run(c, pane, "read -t 3 -p 'ans? ' x; echo \"got=[$x]\"; sleep 5 & wait", { timeout: 10 })
    assert.deepInclude(asked.blocked_by, { program: "bash", kind: "prompt" })
    const answering = call(c, "run_shell_command", {
      pane_id: pane,
      resume: asked.run_id,
      answer: `touch ${shellQuote(mark)}`,
      timeout: 20
    })
    // The answer reaches the terminal after the read gave up (the terminal echoes it); then a person scrolls.
    await until(
      "the unread answer on the pane",
      () => world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", pane),
      (screen) => screen.includes(`touch ${shellQuote(mark)}`)
    )
    world.tmux("libtmux-mcp", "copy-mode", "-t", pane)
    assert.deepInclude(structured(await answering), { exit_status: 0 })
    await interruptShown(world, pane)
    assert.deepInclude(await run(c, pane, "echo next", { timeout: 20 }), { exit_status: 0, output: "next" })
    assert.isFalse(existsSync(mark), "the unread answer ran in the shell")
  })

  it("interrupt stops a working run in one call and answers with what it printed", async () => {
    const { c, pane } = await open()
    const working = await run(c, pane, "echo started; sleep 60", { timeout: 1 })
    assert.deepInclude(working, { timed_out: true, output: "started" })
    const stopped = structured(
      await call(c, "run_shell_command", { pane_id: pane, resume: working.run_id, interrupt: true, timeout: 15 })
    )
    assert.deepInclude(stopped, { exit_status: null, interrupted: true })
    absent(stopped, "run_id", "timed_out")
    // answer_key C-c on a working run does the same.
    const again = await run(c, pane, "echo twice; sleep 60", { timeout: 1 })
    const keyed = structured(
      await call(c, "run_shell_command", { pane_id: pane, resume: again.run_id, answer_key: "C-c", timeout: 15 })
    )
    assert.deepInclude(keyed, { exit_status: null, interrupted: true })
    assert.deepInclude(await run(c, pane, "echo after", { timeout: 20 }), { exit_status: 0, output: "after" })
  })

  it("interrupt goes with resume and without an answer", async () => {
    const { c, pane } = await open()
    const alone = await call(c, "run_shell_command", { pane_id: pane, command: "true", interrupt: true })
    assert.include(textOf(alone), "interrupt goes with resume")
  })
})
