/**
 * The way out a blocked run's next_step names works when followed as written (issue 58): vi and
 * vim (in insert mode, with changes) leave with Escape then `:q!`, git's editor (Debian's `editor`,
 * vim here, told by its executable) too, nano with C-x, top with q; a full-screen program not known
 * by name gets advice that says its key depends on it. The test types exactly the steps the text
 * names, as resume answers, and sees the program gone and the run ended.
 */
import { execFileSync } from "node:child_process"
import { existsSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { call, type Connected, structured, textOf } from "../support/mcp.ts"
import { resume, run, runHarness } from "../support/runs.ts"
import { missingHere } from "../support/shells.ts"
import { paneShows, type TmuxWorld } from "../support/tmux.ts"

const { open } = runHarness("quit", { inProcess: true })
const keys = (world: TmuxWorld, pane: string, ...args: ReadonlyArray<string>) =>
  world.tmux("libtmux-mcp", "send-keys", "-t", pane, ...args)

/** The steps a quit advice names, in order: `answer_key "K"` and `answer "L"` before its note. */
const stepsOf = (advice: string): Array<{ readonly answer_key: string } | { readonly answer: string }> => {
  const named = advice.slice(advice.indexOf("quit it with ")).split(" (")[0]!
  return [...named.matchAll(/(answer_key|answer) "([^"]+)"/gu)].map((match) =>
    match[1] === "answer_key" ? { answer_key: match[2]! } : { answer: match[2]! }
  )
}

/** A run that comes back blocked by a full-screen program, long before its timeout. */
const fullScreen = async (c: Connected, pane: string, command: string) => {
  const result = structured(
    await call(c, "run_shell_command", { pane_id: pane, command, timeout: 60 }, { timeout: 20_000 })
  )
  assert.deepInclude(result.blocked_by ?? {}, { kind: "full-screen" }, `${command}: ${JSON.stringify(result)}`)
  return result
}

/**
 * After a person typed into the program: a resume with no answer, which comes back once the program
 * waits for the keyboard again (an answer while it still works on the keys is refused, as it says).
 */
const blockedAgain = async (c: Connected, pane: string, runId: string) => {
  const again = await resume(c, pane, runId, 30)
  assert.deepInclude(again.blocked_by ?? {}, { kind: "full-screen" }, JSON.stringify(again))
  return again
}

/** Follows the quit advice step by step, as resume answers; the last answer's result. */
const follow = async (c: Connected, pane: string, blocked: Record<string, any>) => {
  const steps = stepsOf(blocked.blocked_by.next_step)
  assert.isNotEmpty(steps, blocked.blocked_by.next_step)
  let last: Record<string, any> = blocked
  for (const [i, step] of steps.entries()) {
    last = structured(
      await call(c, "run_shell_command", { pane_id: pane, resume: blocked.run_id, timeout: 30, ...step }, {
        timeout: 20_000
      })
    )
    // Before the last step the program is still there, waiting for the next.
    if (i < steps.length - 1) assert.deepInclude(last.blocked_by ?? {}, { kind: "full-screen" }, JSON.stringify(last))
  }
  return last
}

/** What is left in front of the pane's shell once the run ended: the shell itself. */
const backAtShell = (world: TmuxWorld, pane: string) =>
  paneShows(world, pane, "#{pane_current_command}", (command) => command === "bash")

const vi = !missingHere("/usr/bin/vi")

describe.concurrent("the quit advice, followed as written, quits the program", () => {
  it.skipIf(!vi)("vi in insert mode with changes: Escape, then :q! (nothing saved)", async () => {
    const { world, c, pane } = await open()
    const blocked = await fullScreen(c, pane, "vi notes.txt; echo vi-ended $?")
    assert.include(blocked.blocked_by.next_step, "answer_key \"Escape\", then answer \":q!\"")
    assert.notInclude(blocked.blocked_by.next_step, "q or C-c")
    keys(world, pane, "i")
    keys(world, pane, "-l", "some words")
    const ended = await follow(c, pane, await blockedAgain(c, pane, blocked.run_id))
    assert.deepInclude(ended, { exit_status: 0 })
    assert.include(ended.output, "vi-ended 0")
    assert.isFalse(existsSync(join(world.dir, "notes.txt")))
    await backAtShell(world, pane)
  })

  it.skipIf(!vi)("git's editor (Debian's `editor`, named by its executable): Escape, then :q!", async () => {
    const { world, c, pane } = await open()
    const repo = join(world.dir, "repo")
    execFileSync("sh", ["-c", `git init -q ${shellQuote(repo)} && echo x > ${shellQuote(join(repo, "f"))}`])
    const blocked = await fullScreen(
      c,
      pane,
      `cd ${shellQuote(repo)} && git add f && env -u GIT_EDITOR -u VISUAL -u EDITOR git ` +
        "-c user.name=t -c user.email=t@t commit"
    )
    assert.notInclude(blocked.blocked_by.next_step, "q or C-c")
    const ended = await follow(c, pane, blocked)
    // The message was left empty: git aborts the commit, with a status of its own.
    assert.isNumber(ended.exit_status, JSON.stringify(ended))
    assert.isUndefined(ended.blocked_by)
    await backAtShell(world, pane)
  })

  it.skipIf(missingHere("/bin/nano"))("nano: C-x, then n when it asks to save", async () => {
    const { world, c, pane } = await open()
    const plain = await fullScreen(c, pane, "nano plain.txt; echo nano-ended $?")
    assert.include(plain.blocked_by.next_step, "answer_key \"C-x\"")
    const ended = await follow(c, pane, plain)
    assert.include(ended.output, "nano-ended 0")
    // With changes, nano asks whether to save them: the note names the key that leaves without saving.
    const changed = await fullScreen(c, pane, "nano changed.txt; echo nano-ended $?")
    keys(world, pane, "-l", "some words")
    const asked = await follow(c, pane, await blockedAgain(c, pane, changed.run_id))
    assert.deepInclude(asked.blocked_by ?? {}, { kind: "full-screen" })
    assert.include(asked.blocked_by.next_step, "the key n leaves without saving")
    const left = await call(c, "run_shell_command", { pane_id: pane, resume: changed.run_id, answer_key: "n" })
    assert.include(structured(left).output, "nano-ended 0", textOf(left))
    assert.isFalse(existsSync(join(world.dir, "changed.txt")))
    await backAtShell(world, pane)
  })

  it("top: q; a full-screen program not known by name: its key depends on it", async () => {
    const { world, c, pane } = await open()
    const top = await fullScreen(c, pane, "top; echo top-ended")
    assert.include(top.blocked_by.next_step, "answer_key \"q\"")
    assert.include((await follow(c, pane, top)).output, "top-ended")
    // A script on the alternate screen waiting for one key: nothing here knows its key.
    const script = join(world.dir, "menu.sh")
    writeFileSync(script, "tput smcup; echo 'press x'; until read -rsn1 k && [ \"$k\" = x ]; do :; done; tput rmcup\n")
    const menu = await fullScreen(c, pane, `bash ${shellQuote(script)}`)
    assert.include(menu.blocked_by.next_step, "which key depends on the program")
    keys(world, pane, "x")
    assert.deepInclude(await resume(c, pane, menu.run_id, 15), { exit_status: 0 })
  })

  it.skipIf(!vi)("vi in front of the shell refuses a run, naming send_keys steps that quit it", async () => {
    const { world, c, pane } = await open()
    await run(c, pane, "true")
    keys(world, pane, "vi", "Enter")
    await paneShows(world, pane, "#{alternate_on}", (on) => on === "1")
    const refused = await call(c, "run_shell_command", { pane_id: pane, command: "echo hi", timeout: 10 })
    const text = textOf(refused)
    assert.include(text, "send_keys \"Escape\" with enter false, then send_keys \":q!\"", text)
    // As the text says: Escape alone, then :q! with Enter.
    keys(world, pane, "Escape")
    keys(world, pane, "-l", ":q!")
    keys(world, pane, "Enter")
    await backAtShell(world, pane)
    assert.deepInclude(await run(c, pane, "echo hi", { timeout: 10 }), { exit_status: 0, output: "hi" })
  })
})
