/**
 * A run that waits for the keyboard (issue 38), through the SDK client on real tmux: the next
 * command on its pane is refused at once, naming the run, the program in front and both ways out,
 * while a run that is only slow is still waited for; an interrupted run's answer carries its output;
 * resume with answer types into a blocked run and waits again, and types nothing when the run ended,
 * is another pane's, or ends just as the answer is sent.
 */
import { execFile } from "node:child_process"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { absent, call, type Connected, structured, textOf } from "../support/mcp.ts"
import { rounds } from "../support/rounds.ts"
import { leftovers, resume, run, runHarness } from "../support/runs.ts"
import { shellEnv } from "../support/shells.ts"
import { paneShows, type TmuxWorld } from "../support/tmux.ts"

const h = runHarness("answer", { inProcess: true })
// Two servers on one socket are two processes (an in-process pair would share one process ID).
const bin = runHarness("answer")
const { open } = h
const keys = (world: TmuxWorld, pane: string, ...args: ReadonlyArray<string>) =>
  world.tmux("libtmux-mcp", "send-keys", "-t", pane, ...args)
const tag = (result: { readonly _meta?: Record<string, unknown> | undefined }) =>
  result._meta?.["com.git-pull.libtmux-mcp/error"]

/** A run that must come back blocked, long before its timeout. */
const blocked = async (c: Connected, pane: string, command: string) => {
  const result = structured(
    await call(c, "run_shell_command", { pane_id: pane, command, timeout: 60 }, { timeout: 20_000 })
  )
  assert.isDefined(result.blocked_by, `${command}: ${JSON.stringify(result)}`)
  return result
}

/**
 * The next command on a pane a blocked run holds: with a timeout of 60 s, bounded at 5 s by the
 * request (the refusal itself comes within 1 s; bench measures it), so waiting out the timeout fails.
 */
const refusedAtOnce = async (c: Connected, pane: string) => {
  const refused = await call(
    c,
    "run_shell_command",
    { pane_id: pane, command: "echo no", timeout: 60 },
    { timeout: 5_000 }
  )
  assert.strictEqual(tag(refused), "PaneNotReady", textOf(refused))
  return textOf(refused)
}

describe.concurrent("a run that waits for the keyboard refuses the next command at once", () => {
  it.skipIf(!existsSync("/usr/bin/python3"))("a REPL a run started, by this instance or another", async () => {
    const { world, c, pane } = await bin.open()
    const repl = await blocked(c, pane, "python3 -q")
    assert.deepInclude(repl.blocked_by, { program: "python3", kind: "line-editor" })
    const other = await bin.connect(world, shellEnv(world, "/bin/bash"))
    for (const instance of [c, other]) {
      const text = await refusedAtOnce(instance, pane)
      for (const words of [repl.run_id, "python3", "line editor", "send_keys", `resume "${repl.run_id}"`, "C-d"]) {
        assert.include(text, words)
      }
    }
    keys(world, pane, "C-d")
    assert.deepInclude(await resume(c, pane, repl.run_id, 15), { exit_status: 0 })
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("a prompt of read -p, and cat reading the terminal", async () => {
    const { world, c, pane } = await open()
    const asked = await blocked(c, pane, "read -p 'name? ' answer; echo got $answer")
    assert.include(await refusedAtOnce(c, pane), `run ${asked.run_id}`)
    keys(world, pane, "-l", "bob")
    keys(world, pane, "Enter")
    assert.deepInclude(await resume(c, pane, asked.run_id, 15), { exit_status: 0 })
    const waiting = await blocked(c, pane, "cat")
    const text = await refusedAtOnce(c, pane)
    for (const words of [waiting.run_id, "\"cat\"", "cat in front", "C-c"]) assert.include(text, words)
    keys(world, pane, "C-d")
    assert.deepInclude(await resume(c, pane, waiting.run_id, 15), { exit_status: 0 })
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("a run that is only slow is waited for, and the next command reports it", async () => {
    const { world, c, pane } = await open()
    const slow = await run(c, pane, "sleep 2", { timeout: 1 })
    assert.isTrue(slow.timed_out)
    const next = await run(c, pane, "echo next", { timeout: 30 })
    assert.deepInclude(next, { output: "next", exit_status: 0, earlier_run: { run_id: slow.run_id, exit_status: 0 } })
    assert.deepStrictEqual(leftovers(world, pane), [])
  })
})

describe.concurrent("an interrupted run's answer carries its output", () => {
  it("within max_lines, after the previous answer or whole", async () => {
    const { world, c, pane } = await open()
    const timed = await run(c, pane, "for i in 1 2 3 4; do echo line$i; done; sleep 60", { timeout: 1 })
    assert.deepInclude(timed, { timed_out: true, output: "line1\nline2\nline3\nline4" })
    keys(world, pane, "C-c")
    const lost = await call(c, "run_shell_command", {
      pane_id: pane,
      resume: timed.run_id,
      timeout: 15,
      whole_output: true,
      max_lines: 3
    })
    assert.strictEqual(tag(lost), "RunUnreported", textOf(lost))
    const text = textOf(lost)
    assert.include(text, "Its output (its last lines within max_lines/max_bytes; 2 lines before them left out):\n")
    assert.match(text, /:\nline3\nline4\n\^C$/u)
    assert.notInclude(text, "capture_pane")
    // Without whole_output it is what came after the previous answer, as a resume returns it.
    const again = await run(c, pane, "echo five; sleep 60", { timeout: 1 })
    assert.deepInclude(again, { timed_out: true, output: "five" })
    keys(world, pane, "C-c")
    const since = await call(c, "run_shell_command", { pane_id: pane, resume: again.run_id, timeout: 15 })
    assert.strictEqual(tag(since), "RunUnreported", textOf(since))
    assert.match(textOf(since), /Its output since the previous answer:\n\^C$/u)
    assert.deepStrictEqual(leftovers(world, pane), [])
  })
})

/** A resume that answers; its raw result. */
const answer = (c: Connected, pane: string, runId: string, extra: Record<string, unknown>) =>
  call(c, "run_shell_command", { pane_id: pane, resume: runId, timeout: 30, ...extra }, { timeout: 40_000 })

describe.concurrent("an answer and its wait in one call", () => {
  it("a three-question installer takes four calls, its secret in no result and digested in the audit", async () => {
    const token = "tok-7Hq2-secret"
    const { world, c, pane } = await open("/bin/bash", { LIBTMUX_AUDIT_LOG: "" }, (w, env) => {
      ;(env as Record<string, string>).LIBTMUX_AUDIT_LOG = join(w.dir, "audit.jsonl")
    })
    const script = join(world.dir, "install.sh")
    writeFileSync(
      script,
      "read -p 'name? ' n\nread -s -p 'token? ' t\necho\nread -p 'dir? ' d\necho \"installed $n in $d (${#t})\"\n"
    )
    const results: Array<Record<string, unknown>> = []
    const first = await blocked(c, pane, `bash ${shellQuote(script)}`)
    results.push(first)
    assert.deepInclude(first.blocked_by, { program: "bash", kind: "prompt" })
    const second = structured(await answer(c, pane, first.run_id, { answer: "ada" }))
    results.push(second)
    assert.deepInclude(second.blocked_by, { program: "bash", kind: "secret" })
    const third = structured(await answer(c, pane, first.run_id, { answer: token }))
    results.push(third)
    assert.deepInclude(third.blocked_by, { program: "bash", kind: "prompt" })
    const done = structured(await answer(c, pane, first.run_id, { answer: "/opt/x" }))
    results.push(done)
    assert.strictEqual(done.exit_status, 0, JSON.stringify(done))
    assert.include(done.output, `installed ada in /opt/x (${token.length})`)
    for (const result of results) assert.notInclude(JSON.stringify(result), token)
    const audit = readFileSync(join(world.dir, "audit.jsonl"), "utf8")
    assert.notInclude(audit, token)
    const answered = audit.trim().split("\n").map((line) => JSON.parse(line))
      .filter((record) => record.event === "tool_call_intent" && record.arguments?.answer !== undefined)
    assert.lengthOf(answered, 3)
    assert.strictEqual(answered[1].arguments.answer.length, token.length)
    assert.match(answered[1].arguments.answer.hmac, /^[0-9a-f]{16}$/u)
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it.skipIf(!existsSync("/usr/bin/python3"))("a REPL driven with answers: a def, then exit()", async () => {
    const { world, c, pane } = await open()
    const repl = await blocked(c, pane, "python3 -q")
    const defined = structured(await answer(c, pane, repl.run_id, { answer: "def twice(x):" }))
    assert.strictEqual(defined.blocked_by?.kind, "line-editor", JSON.stringify(defined))
    const body = structured(await answer(c, pane, repl.run_id, { answer: "    return 2 * x" }))
    assert.isDefined(body.blocked_by, JSON.stringify(body))
    // An empty line ends the block: Enter alone, as a key.
    assert.isDefined(structured(await answer(c, pane, repl.run_id, { answer_key: "Enter" })).blocked_by)
    const called = structured(await answer(c, pane, repl.run_id, { answer: "print(twice(21))" }))
    assert.include(called.output, "42")
    const quit = structured(await answer(c, pane, repl.run_id, { answer: "exit()" }))
    assert.deepInclude(quit, { exit_status: 0 })
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("refuses an answer to a finished run, another pane's run or a working run, typing nothing", async () => {
    const { world, c, pane } = await open()
    const marker = join(world.dir, "MARKER")
    const slow = await run(c, pane, "sleep 3; echo slept", { timeout: 0.5 })
    assert.isTrue(slow.timed_out)
    // Working, not waiting for the keyboard: nothing typed.
    const working = await answer(c, pane, slow.run_id, { answer: `touch ${shellQuote(marker)}` })
    assert.strictEqual(tag(working), "PaneNotReady", textOf(working))
    assert.include(textOf(working), "not waiting for the keyboard")
    // Finished (its status report came while nobody waited): nothing typed, and it can still be collected.
    await paneShows(world, pane, "#{@lmcp_claim}", (claim) => claim === "")
    const ended = await answer(c, pane, slow.run_id, { answer: `touch ${shellQuote(marker)}` })
    assert.strictEqual(tag(ended), "InputInvalid", textOf(ended))
    assert.include(textOf(ended), "has ended")
    assert.deepInclude(await resume(c, pane, slow.run_id, 10), { exit_status: 0, output: "slept" })
    const other = structured(await call(c, "split_window", { pane_id: pane })).pane_id as string
    const waiting = await blocked(c, pane, "cat")
    const foreign = await answer(c, other, waiting.run_id, { answer: `touch ${shellQuote(marker)}` })
    assert.strictEqual(tag(foreign), "InputInvalid", textOf(foreign))
    assert.include(textOf(foreign), `belongs to pane ${pane}`)
    const both = await answer(c, pane, waiting.run_id, { answer: "x", answer_key: "C-d" })
    assert.strictEqual(tag(both), "InputInvalid")
    const quit = structured(await answer(c, pane, waiting.run_id, { answer_key: "C-d" }))
    assert.deepInclude(quit, { exit_status: 0 })
    assert.isFalse(existsSync(marker))
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("refuses an answer to an in-shell read, which the shell itself asks, typing nothing", async () => {
    const { world, c, pane } = await open()
    const asked = await run(c, pane, "read -p 'name? ' v", { in_shell: true, timeout: 20 })
    assert.deepInclude(asked.blocked_by, { program: "bash", kind: "prompt" })
    const refused = await answer(c, pane, asked.run_id, { answer: "ada" })
    assert.strictEqual(tag(refused), "PaneNotReady", textOf(refused))
    assert.include(textOf(refused), "nothing was typed")
    keys(world, pane, "-l", "bob")
    keys(world, pane, "Enter")
    assert.deepInclude(await resume(c, pane, asked.run_id, 15), { exit_status: 0, output: "bob" })
    assert.deepInclude(await run(c, pane, "echo $v"), { output: "bob" })
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it(`an answer raced against the run's end never reaches the shell (${rounds(4, 200)} rounds)`, async () => {
    const { world, c, pane } = await open()
    const marker = join(world.dir, "MARKER")
    const pidFile = join(world.dir, "cat.pid")
    for (let round = 0; round < rounds(4, 200); round++) {
      const waiting = await blocked(c, pane, `sh -c ${shellQuote(`echo $$ > ${shellQuote(pidFile)}; exec cat`)}`)
      const pid = Number(readFileSync(pidFile, "utf8"))
      // The program ends as the answer is on its way: a process of the test's kills it after a delay
      // spread over the rounds (0 to 150 ms), before, during or after the answer's checks and typing.
      const killer = new Promise((done) =>
        execFile("sh", ["-c", `sleep ${(round % 16) / 100}; kill -TERM ${pid}`], () => done(undefined))
      )
      const answered = answer(c, pane, waiting.run_id, { answer: `touch ${shellQuote(marker)}` })
      const [result] = await Promise.all([answered, killer])
      if (result.isError !== true) absent(result.structuredContent, "timed_out")
      else {
        // Nothing was typed: the run ended; collect it.
        assert.include(textOf(result), "nothing was typed")
        await call(c, "run_shell_command", { pane_id: pane, resume: waiting.run_id, timeout: 10 })
      }
      assert.deepInclude(await run(c, pane, "echo next"), { exit_status: 0 })
      assert.isFalse(existsSync(marker), `round ${round}`)
    }
    assert.deepStrictEqual(leftovers(world, pane), [])
  }, rounds(60_000, 900_000))
})
