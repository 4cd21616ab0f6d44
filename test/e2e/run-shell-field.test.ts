/**
 * run_shell_command under field conditions, each case as it was reported: slow startup files in
 * every shell, a missing pane, output that prints the run's own protocol, pagers and prompts,
 * incomplete commands, parallel calls, payloads past tmux's message limit, a killed tmux server,
 * a shell whose environment lacks TMUX, and what a person watching the pane sees.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { gitHistory } from "../support/gitHistory.ts"
import { absent, call, textOf } from "../support/mcp.ts"
import { holdsFor, until } from "../support/poll.ts"
import { leftovers, resume, run, runHarness } from "../support/runs.ts"
import { missingHere } from "../support/shells.ts"
import { paneShows, type TmuxWorld } from "../support/tmux.ts"

const { open } = runHarness("field", { inProcess: true })
const tag = (result: { readonly _meta?: Record<string, unknown> | undefined }) =>
  result._meta?.["com.git-pull.libtmux-mcp/error"]
const screen = (world: TmuxWorld, pane: string) =>
  world.tmux("libtmux-mcp", "capture-pane", "-p", "-J", "-S", "-", "-t", pane)

/** Startup files that take `seconds` before the first prompt, for each shell's login or interactive start. */
const slowStart = (shell: string, body: string) => (world: TmuxWorld) => {
  if (shell.endsWith("fish")) {
    mkdirSync(join(world.dir, ".config", "fish"), { recursive: true })
    writeFileSync(join(world.dir, ".config", "fish", "config.fish"), `${body}\n`)
  } else {
    writeFileSync(join(world.dir, shell.endsWith("zsh") ? ".zshrc" : ".profile"), `${body}\n`)
  }
}

const shells = ["/bin/bash", "/usr/bin/zsh", "/bin/dash", "/usr/bin/fish"]
describe.concurrent("a shell still starting", () => {
  for (const shell of shells) {
    it.skipIf(missingHere(shell))(
      `types nothing into ${shell} until its slow startup file is done, and runs the command once`,
      async () => {
        // Long enough that the first call lands while it still runs, even on a loaded machine.
        const { world, c, pane } = await open(shell, {}, slowStart(shell, "sleep 4"))
        const early = await call(c, "run_shell_command", {
          pane_id: pane,
          command: "echo marker-xy | tr xy 42",
          timeout: 0.5
        })
        assert.strictEqual(tag(early), "PaneNotReady")
        assert.include(textOf(early), "still starting")
        assert.include(textOf(early), "nothing was typed")
        const late = await run(c, pane, "echo marker-xy | tr xy 42", { timeout: 20 })
        assert.deepInclude(late, { output: "marker-42", exit_status: 0 })
        absent(late, "timed_out")
        // The shell reads its input in order: once a later command ran, anything typed before it ran too.
        await run(c, pane, "true", { timeout: 20 })
        // dash prints its continuation prompts before the output, on the same row.
        assert.strictEqual(
          screen(world, pane).split("\n").filter((line) => line.endsWith("marker-42")).length,
          1,
          "the command ran exactly once"
        )
      }
    )
  }

  it(
    "waits out a startup file that busy-loops in the shell " +
      "itself (the foreground check alone calls it ready)",
    async () => {
      // The loop spins until the test lets it end, a second after the call: a loop of a fixed length
      // could end before a call on a loaded machine arrived, leaving nothing to wait out.
      const { world, c, pane } = await open(
        "/bin/bash",
        {},
        slowStart("/bin/bash", "until [ -e \"$HOME/startup-done\" ]; do :; done")
      )
      const running = run(c, pane, "echo ready", { timeout: 30 })
      // The terminal echoes what is typed while bash runs its startup file: nothing may show meanwhile.
      const typedNothing = () => !screen(world, pane).includes("ready")
      await holdsFor(1000, "nothing is typed while the startup file runs", typedNothing, { intervalMs: 100 })
      writeFileSync(join(world.dir, "startup-done"), "")
      const result = await running
      assert.deepInclude(result, { output: "ready", exit_status: 0 })
      assert.isAbove(result.elapsed_seconds, 0.2, "elapsed_seconds counts the wait for the prompt")
    }
  )
})

describe.concurrent("targets and output", () => {
  it("answers a missing pane at once with the panes that exist", async () => {
    const { c, pane } = await open()
    const result = await call(c, "run_shell_command", { pane_id: "%99", command: "echo hi" })
    assert.strictEqual(tag(result), "PaneNotFound")
    assert.include(textOf(result), pane)
  })

  it(
    "returns the whole output when the command prints the " +
      "run's own protocol: process listings and tmux options",
    async () => {
      const { world, c, pane } = await open()
      // The listing goes to a file too (the shell runs in the world's folder): the output is it, exactly.
      const listing = await run(
        c,
        pane,
        "echo before; { ps -eo args | grep -e wait-for -e lmcp; tmux -S \"${TMUX%%,*}\" show -p; } " +
          "| tee listing.txt; echo after"
      )
      const printed = readFileSync(join(world.dir, "listing.txt"), "utf8")
      assert.include(printed, "wait-for", "the listing holds the run's own protocol")
      assert.strictEqual(listing.output, `before\n${printed}after`)
    }
  )

  it("keeps what the terminal keeps: trailing spaces, tabs as the spaces they moved over", async () => {
    const { c, pane } = await open()
    assert.strictEqual((await run(c, pane, "printf 'a\\tb  '")).output, "a       b  ")
    assert.strictEqual((await run(c, pane, "printf 'x\ty\\n'")).output, "x       y")
  })

  it("delivers 6,000 ASCII and 6,000 CJK characters whole, as one paste, and keeps the pane usable", async () => {
    const { world, c, pane } = await open()
    const result = await run(c, pane, `echo ${"a".repeat(6000)} ${"二".repeat(6000)} | wc -c`)
    assert.deepInclude(result, { output: "24002", exit_status: 0 })
    assert.deepInclude(await run(c, pane, "echo next"), { output: "next" })
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("refuses a line the terminal would cut short in a shell without a line editor, typing nothing", async () => {
    const { world, c, pane } = await open("/bin/dash")
    const result = await call(c, "run_shell_command", { pane_id: pane, command: `echo ${"二".repeat(2000)}` })
    assert.strictEqual(tag(result), "InputInvalid")
    assert.include(textOf(result), "4095 bytes")
    assert.notInclude(screen(world, pane), "二")
  })
})

describe.concurrent("programs that wait for the terminal", () => {
  const blocked = async (c: Parameters<typeof run>[0], pane: string, command: string) => {
    const result = await run(c, pane, command, { timeout: 60 })
    assert.deepInclude(result, { exit_status: null })
    absent(result, "timed_out")
    assert.isString(result.blocked_by?.program)
    assert.match(result.run_id, /^[0-9a-f]{6}$/u)
    return result
  }

  it("returns blocked_by for less, git's default pager and read -p, and resume returns the final status", async () => {
    // LESS unset: git then sets its default LESS=FRX, and less on its own uses the alternate screen.
    const { world, c, pane } = await open()
    writeFileSync(join(world.dir, "file.txt"), Array.from({ length: 200 }, (_, i) => `row ${i}`).join("\n"))
    const less = await blocked(c, pane, `echo before; less ${shellQuote(join(world.dir, "file.txt"))}; echo after`)
    assert.deepInclude(less.blocked_by, { program: "less", kind: "pager" })
    assert.strictEqual(less.output, "before")
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "q")
    assert.deepInclude(await resume(c, pane, less.run_id, 10), { exit_status: 0, output: "after" })

    const repo = join(world.dir, "repo")
    gitHistory(repo, 60)
    const git = await blocked(c, pane, `git -C ${shellQuote(repo)} log --oneline; echo logged`)
    assert.include(git.output, "change 60")
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "q")
    const logged = await resume(c, pane, git.run_id, 10)
    assert.strictEqual(logged.exit_status, 0)
    assert.strictEqual(logged.output, "logged")

    const asked = await blocked(c, pane, "read -p 'name? ' answer; echo got $answer")
    assert.strictEqual(asked.output, "name? ")
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "-l", "bob")
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "Enter")
    // The rest of the row the blocked answer ended within, then the next line.
    assert.deepInclude(await resume(c, pane, asked.run_id, 10), { exit_status: 0, output: "bob\ngot bob" })
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it.skipIf(!existsSync("/usr/bin/man"))("returns blocked_by for man, a full-screen pager", async () => {
    const { c, pane, world } = await open()
    const manual = await blocked(c, pane, "man ls")
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "q")
    absent(await resume(c, pane, manual.run_id, 10), "timed_out")
  })

  it(
    "queues a new run while one holds the pane, then refuses naming it; an interrupted run says its status is lost",
    async () => {
      const { world, c, pane } = await open()
      const waiting = await blocked(c, pane, "cat")
      const refused = await call(c, "run_shell_command", { pane_id: pane, command: "echo no", timeout: 1 })
      assert.strictEqual(tag(refused), "PaneNotReady")
      assert.include(textOf(refused), waiting.run_id)
      assert.include(textOf(refused), "\"cat\"")
      assert.include(textOf(refused), "C-c")
      world.tmux("libtmux-mcp", "send-keys", "-t", pane, "C-c")
      const lost = await call(c, "run_shell_command", { pane_id: pane, resume: waiting.run_id, timeout: 10 })
      assert.strictEqual(tag(lost), "RunUnreported")
      assert.deepInclude(await run(c, pane, "echo next"), { output: "next", exit_status: 0 })
      assert.deepStrictEqual(leftovers(world, pane), [])
    }
  )

  it(
    "answers resume with an unknown, collected, foreign or malformed " +
      "run_id, or with both or neither of command and resume, clearly",
    async () => {
      const { world, c, pane } = await open()
      const other = structuredPane(await call(c, "split_window", { pane_id: pane }))
      const timed = await run(c, pane, "sleep 1; echo done", { timeout: 0.3 })
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ pane_id: pane, resume: "abcdef" }, "not recorded on pane"],
        [{ pane_id: other, resume: timed.run_id }, `belongs to pane ${pane}`],
        [{ pane_id: pane, resume: "#{pid}" }, "resume"],
        [{ pane_id: pane, command: "true", resume: timed.run_id }, "exactly one"],
        [{ pane_id: pane }, "exactly one"]
      ]
      for (const [args, words] of cases) {
        const result = await call(c, "run_shell_command", args)
        assert.strictEqual(tag(result), "InputInvalid", JSON.stringify(args))
        assert.include(textOf(result), words)
      }
      assert.strictEqual((await resume(c, pane, timed.run_id, 10)).output, "done")
      const collected = await call(c, "run_shell_command", { pane_id: pane, resume: timed.run_id })
      assert.include(textOf(collected), "already collected")
      assert.deepStrictEqual(leftovers(world, pane), [])
    }
  )
})

const structuredPane = (result: Awaited<ReturnType<typeof call>>) =>
  (result.structuredContent as { pane_id: string }).pane_id

describe.concurrent("input that never runs", () => {
  for (const [shell, outcome] of [["/bin/bash", "RunUnreported"], ["/bin/dash", "RunIncomplete"]] as const) {
    it(`cancels an incomplete command in ${shell}; says nothing ran only when proven`, async () => {
      const { world, c, pane } = await open(shell)
      const result = await call(c, "run_shell_command", { pane_id: pane, command: "echo \"unbalanced" })
      // dash's start mark proves the command never started; bash types none, so it may have run.
      assert.strictEqual(tag(result), outcome)
      assert.include(textOf(result), "incomplete")
      if (outcome === "RunUnreported") assert.include(textOf(result), "may have run")
      assert.deepInclude(await run(c, pane, "echo clean"), { output: "clean", exit_status: 0 })
      assert.deepStrictEqual(leftovers(world, pane), [])
    })
  }
})

describe.concurrent("parallel calls and a dying server", () => {
  it("takes turns on one pane: every success carries its own output", async () => {
    const { c, pane } = await open()
    const results = await Promise.all(
      Array.from(
        { length: 10 },
        (_, i) => call(c, "run_shell_command", { pane_id: pane, command: `echo call-${i}; sleep 0.05`, timeout: 60 })
      )
    )
    results.forEach((result, i) => {
      assert.isNotTrue(result.isError, textOf(result))
      assert.deepInclude(result.structuredContent, { output: `call-${i}`, exit_status: 0 })
    })
  })

  it("answers a tmux server killed while a run waits with the typed error, and keeps serving", async () => {
    const { world, c, pane } = await open()
    const pending = call(c, "run_shell_command", { pane_id: pane, command: "sleep 5", timeout: 30 })
    await paneShows(world, pane, "#{pane_current_command}", (command) => command === "sleep")
    world.tmux("libtmux-mcp", "kill-server")
    const result = await pending
    assert.isTrue(result.isError)
    assert.include(["ServerNotRunning", "PaneNotFound"], tag(result))
    assert.include(textOf(result), "no tmux server is running")
    assert.isNotTrue((await call(c, "create_session", { session_name: "again" })).isError, "the server keeps serving")
  })
})

describe.concurrent("what a person sees", () => {
  it("shows the command and one short status fragment per call, with no socket path", async () => {
    const { world, c, pane } = await open()
    await run(c, pane, "echo shown")
    const rows = screen(world, pane).split("\n")
    assert.notInclude(rows.join("\n"), world.socketPath("libtmux-mcp"))
    const trailer = rows.find((row) => row.includes("run -t"))!
    assert.isAtMost(trailer.length, 80, trailer)
  })

  it(
    "reaches the pinned server by its path when the shell's " +
      "environment lacks TMUX, touching no other server",
    async () => {
      const { world, c, pane } = await open("/bin/bash", {}, (world, env) => {
        const wrapper = join(world.dir, "no-tmux-shell")
        writeFileSync(wrapper, "#!/bin/sh\nunset TMUX\nexec /bin/bash -l\n")
        chmodSync(wrapper, 0o755)
        writeFileSync(env.LIBTMUX_TMUX_CONFIG!, `set -s exit-empty on\nset -g default-shell "${wrapper}"\n`)
      })
      assert.deepInclude(await run(c, pane, "echo ${TMUX:-unset}"), { output: "unset", exit_status: 0 })
      assert.include(screen(world, pane), world.socketPath("libtmux-mcp"))
      assert.isFalse(existsSync(world.socketPath("default")), "no default server was started or reached")
    }
  )
})

describe.concurrent("waiting after typing", () => {
  it(
    "wait_for_text with a capture_since cursor matches output printed " +
      "before the wait began; without it, that output is missed",
    async () => {
      const { world, c, pane } = await open()
      await run(c, pane, "true")
      const cursor = (await call(c, "capture_since", { pane_id: pane })).structuredContent as { cursor: string }
      await call(c, "send_keys", { pane_id: pane, keys: "echo race-$((1 + 1))", literal: true })
      await until("the typed line's output", () => screen(world, pane).split("\n"), (rows) => rows.includes("race-2"))
      const missed = await call(c, "wait_for_text", { pane_id: pane, patterns: ["race-2"], timeout: 0.5 })
      assert.strictEqual((missed.structuredContent as { outcome: string }).outcome, "timeout")
      const caught = await call(c, "wait_for_text", {
        pane_id: pane,
        patterns: ["race-2"],
        since: cursor.cursor,
        timeout: 10
      })
      assert.deepInclude(caught.structuredContent, { outcome: "matched", matched_line: "race-2" })
      const other = structuredPane(await call(c, "split_window", { pane_id: pane }))
      const foreign = await call(c, "wait_for_text", {
        pane_id: other,
        patterns: ["x"],
        since: cursor.cursor,
        timeout: 1
      })
      assert.strictEqual(tag(foreign), "CursorInvalid")
    }
  )
})

describe.concurrent("what a run reads", () => {
  it("reads a run back in the invocation that waited, even on a full screen over a long history", async () => {
    const log = (world: TmuxWorld) => join(world.dir, "tmux.log")
    // Spawned clients only, which the wrapper sees: over a control connection a short run's read-back
    // is the same list, sent once its end record shows (platform/ControlLink.ts `signalled`).
    const { world, c, pane } = await open("/bin/bash", { LIBTMUX_TRANSPORT: "spawn" }, (world, env) => {
      const wrapper = join(world.dir, "logging-tmux")
      writeFileSync(wrapper, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log(world)}'\nexec tmux "$@"\n`)
      chmodSync(wrapper, 0o755)
      ;(env as Record<string, string>).LIBTMUX_TMUX_BIN = wrapper
    })
    await run(c, pane, "seq 1 5000", { max_lines: 1 })
    writeFileSync(log(world), "")
    for (let i = 0; i < 5; i++) assert.strictEqual((await run(c, pane, `echo line-${i}`)).output, `line-${i}`)
    const invocations = readFileSync(log(world), "utf8").split("\n").filter((line) =>
      line.includes(" -L ") || line.startsWith("-u")
    )
    const reads = invocations.filter((line) => line.includes("capture-pane"))
    assert.strictEqual(reads.filter((line) => line.includes("wait-for")).length, 5, "one read-back per run")
    // Besides it, only the readiness looks read rows: the screen, for the prompt row.
    assert.isTrue(
      reads.every((line) => line.includes("wait-for") || / -S 0 -E - *$/u.test(line)),
      "no other read"
    )
    assert.isFalse(invocations.some((line) => / -S - /u.test(line)), "no run read the whole history")
  })
})
