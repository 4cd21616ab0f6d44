/**
 * `libtmux-mcp wait`: a separate process (run through `sh -c`, as a host's background runner
 * would) that waits for a run from what tmux holds, with or without the MCP server, and says how
 * it ended in one line and an exit code; it changes nothing, so a resume afterwards answers as
 * without it.
 */
import type { ChildProcess } from "node:child_process"
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { binPath, commandToExit, type Exited, serverEnv } from "../support/mcp.ts"
import { childProcesses, holdsFor, running, stillPending, until } from "../support/poll.ts"
import { resume, run, runHarness } from "../support/runs.ts"
import { quotingShells } from "../support/shells.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const h = runHarness("wait-cmd")
// The watcher is a process of its own; the MCP server that starts the runs is built in process,
// except where its process is the point (a result's watch_command names it; it is SIGKILLed).
const own = runHarness("wait-cmd", { inProcess: true })
/**
 * A command the test started ends with it, if it outlives it: before the test's worlds go, whichever
 * harness made them (the in-process harness's hook is the inner one, so its deferred work runs first).
 */
const endsWithTest = (child: ChildProcess) => own.defer(() => child.exitCode === null && child.kill("SIGKILL"))

/** Runs a command line through `shell -c` in the world, as a host's background runner would; resolves at its exit. */
const throughShell = (
  world: TmuxWorld,
  line: string,
  shell = "sh",
  env: Readonly<Record<string, string>> = {}
): Promise<Exited> =>
  commandToExit(shell, ["-c", line], {
    env: { ...serverEnv(world), ...env },
    cwd: world.dir,
    started: endsWithTest
  })

/** Starts `libtmux-mcp wait` through `sh -c` in the world; resolves once it exits. */
const startWait = (world: TmuxWorld, args: ReadonlyArray<string>): Promise<Exited> =>
  throughShell(world, [process.execPath, binPath, "wait", ...args].map(shellQuote).join(" "))

/** `wait` started through `sh -c`, with its process: its exit, and the process to find its children under. */
const startWatcher = (world: TmuxWorld, args: ReadonlyArray<string>) => {
  let child: ChildProcess | undefined
  const exited = commandToExit("sh", ["-c", [process.execPath, binPath, "wait", ...args].map(shellQuote).join(" ")], {
    env: serverEnv(world),
    cwd: world.dir,
    started: (started) => {
      child = started
      endsWithTest(started)
    }
  })
  return { exited, pid: child!.pid! }
}

/** The processes under `pid`, its own included, with their argument lists. */
const processTree = (pid: number): Array<{ readonly pid: number; readonly args: ReadonlyArray<string> }> =>
  childProcesses(pid).flatMap((child) => [child, ...processTree(child.pid)])

/** Waits until a tmux client under `pid` waits on the run's channel; that client's pid. */
const waitingClient = async (pid: number, runId: string): Promise<number> =>
  (await until(
    `the watcher's tmux client waiting on run ${runId}'s channel`,
    () =>
      processTree(pid).filter(({ args }) =>
        args.some((arg, i) => arg === "wait-for" && args[i + 1] === `lmcp_${runId}`)
      ),
    (found) => found.length === 1
  ))[0]!.pid

/** The pane's options that name runs, as `show -p` lists them. */
const runOptions = (world: TmuxWorld, pane: string) =>
  world.tmux("libtmux-mcp", "show", "-p", "-t", pane).split("\n").filter((line) => line.includes("lmcp")).sort()

/** A run that times out; its ID. */
const timedOut = async (c: Parameters<typeof run>[0], pane: string, command: string, timeout = 1) => {
  const result = await run(c, pane, command, { timeout })
  assert.isTrue(result.timed_out, JSON.stringify(result))
  return result.run_id as string
}

const ended = (world: TmuxWorld, pane: string, runId: string) =>
  world.tryTmux("libtmux-mcp", "show", "-pv", "-t", pane, `@lmcp_end_${runId}`)?.trim() ?? ""

// Each test has its own tmux server and MCP server, and most wait on runs that sleep: they run side by side.
describe.concurrent("libtmux-mcp wait", () => {
  it("waits for a run that timed out, until it ends; the resume after it answers as without it", async () => {
    const { world, c, pane } = await own.open()
    const runId = await timedOut(c, pane, "echo started; sleep 5; echo finished; exit 7")
    const waited = startWait(world, [runId, "--pane", pane, "--timeout", "60"])
    const pending = stillPending(waited)
    // It waits while the run runs.
    await until("the run's end record", () => ended(world, pane, runId), (value) => value !== "")
    const done = await waited
    assert.isFalse(pending())
    assert.deepStrictEqual(done, { code: 0, stdout: `run ${runId} ended: exit status 7\n`, stderr: "" })
    // Nothing collected: the record is still there, and the resume answers from it.
    assert.isTrue(runOptions(world, pane).some((line) => line.startsWith(`@lmcp_run_${runId} `)))
    // What came after the timed-out answer, as a resume returns it without the watcher.
    assert.deepInclude(await resume(c, pane, runId, 10), { exit_status: 7, output: "finished" })
  })

  it("the watch_command of a timed-out result, run by sh, bash, dash, zsh and fish, waits for the run", async () => {
    // Spaces and quotes in the socket's path (in the folder the world's disposal empties).
    const socketName = `it's a "quoted" sock`
    const { world, c, pane } = await h.open("/bin/bash", {}, (world, env) => {
      mkdirSync(join(world.dir, `tmux-${process.getuid?.() ?? 0}`), { recursive: true, mode: 0o700 })
      Object.assign(env, { LIBTMUX_SOCKET: `path:${join(world.dir, `tmux-${process.getuid?.() ?? 0}`, socketName)}` })
    })
    const result = await run(c, pane, "sleep 4; exit 7", { timeout: 1 })
    assert.isTrue(result.timed_out, JSON.stringify(result))
    const line = result.watch_command as string
    assert.match(line, /^'\/[^']+' '\/[^']+' 'wait' '[0-9a-f]{6}' '--pane' '%[0-9]+' '--socket' 'path:\/.+' /u)
    assert.include(line, `/it'"'"'s a "quoted" sock' `)
    const shells = quotingShells()
    // Standard input from /dev/null, as a background runner gives: bash reads ~/.bashrc when it is a socket.
    const runs = shells.map((shell) => throughShell(world, line, shell))
    for (const [i, done] of (await Promise.all(runs)).entries()) {
      assert.deepStrictEqual(
        done,
        { code: 0, stdout: `run ${result.run_id} ended: exit status 7\n`, stderr: "" },
        shells[i]
      )
    }
    assert.deepInclude(await resume(c, pane, result.run_id, 10), { exit_status: 7 })
  }, 60_000)

  it("the recipe docs/waiting-from-a-host.md gives any harness runs the watch_command as written", async () => {
    const page = readFileSync(fileURLToPath(new URL("../../docs/waiting-from-a-host.md", import.meta.url)), "utf8")
    const recipe = /- Any harness[^\n]*\n(?:[^\n]*\n)*?\s*```sh\n\s*([^\n]+)\n\s*```/u.exec(page)?.[1]
    assert.strictEqual(recipe, `sh -c "$watch_command" </dev/null`)
    const { world, c, pane } = await h.open()
    const result = await run(c, pane, "sleep 3; exit 7", { timeout: 1 })
    assert.isTrue(result.timed_out, JSON.stringify(result))
    const done = await throughShell(world, recipe!, "sh", { watch_command: result.watch_command as string })
    assert.deepStrictEqual(done, { code: 0, stdout: `run ${result.run_id} ended: exit status 7\n`, stderr: "" })
  })

  it("a resume racing the watcher answers as without it; the watcher sees the end or the collection", async () => {
    const { world, c, pane } = await own.open()
    const runId = await timedOut(c, pane, "sleep 3; echo done; exit 2")
    const waited = startWait(world, [runId, "--pane", pane, "--timeout", "30"])
    assert.deepInclude(await resume(c, pane, runId, 20), { exit_status: 2, output: "done" })
    const done = await waited
    assert.oneOf(done.stdout, [
      `run ${runId} ended: exit status 2\n`,
      `run ${runId} was already collected: exit status 2\n`
    ])
    assert.strictEqual(done.code, done.stdout.includes("collected") ? 7 : 0)
  })

  it("a run that ended before the watcher starts is answered at once", async () => {
    const { world, c, pane } = await own.open()
    const runId = await timedOut(c, pane, "sleep 2; exit 3")
    await until("the run's end record", () => ended(world, pane, runId), (value) => value !== "")
    const before = runOptions(world, pane)
    assert.deepStrictEqual(await startWait(world, [runId, "--pane", pane, "--timeout", "20"]), {
      code: 0,
      stdout: `run ${runId} ended: exit status 3\n`,
      stderr: ""
    })
    assert.deepStrictEqual(runOptions(world, pane), before)
    assert.deepInclude(await resume(c, pane, runId, 10), { exit_status: 3 })
  })

  it("works after the MCP server was SIGKILLed between the timeout and the end", async () => {
    const { world, c, pane } = await h.open()
    const runId = await timedOut(c, pane, "sleep 3; echo late; exit 4")
    process.kill(c.pid!()!, "SIGKILL")
    const done = await startWait(world, [runId, "--pane", pane, "--timeout", "30"])
    assert.deepStrictEqual(done, { code: 0, stdout: `run ${runId} ended: exit status 4\n`, stderr: "" })
    const again = await h.connect(world, { ...serverEnvOf(world) })
    assert.deepInclude(await resume(again, pane, runId, 10), { exit_status: 4, output: "late" })
  })

  it("C-c in the pane: the run is over without a status report", async () => {
    const { world, c, pane } = await own.open()
    const runId = await timedOut(c, pane, "sleep 30")
    const waited = startWait(world, [runId, "--pane", pane, "--timeout", "30"])
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "C-c")
    const done = await waited
    assert.strictEqual(done.code, 3, JSON.stringify(done))
    assert.strictEqual(
      done.stdout,
      `run ${runId} ended without a status report: the shell is back at its prompt without the run's status ` +
        "(interrupted, as by C-c)\n"
    )
  })

  it("a run that then blocks on read -p: the line names the program and the prompt kind", async () => {
    const { world, c, pane } = await own.open()
    const runId = await timedOut(c, pane, "sleep 2; read -p 'name? ' answer; echo got $answer")
    const done = await startWait(world, [runId, "--pane", pane, "--timeout", "30"])
    assert.deepStrictEqual(done, {
      code: 4,
      stdout: `run ${runId} is blocked: bash holds the keyboard (prompt)\n`,
      stderr: ""
    })
    // It typed nothing: the prompt still waits, and an answer typed now ends the run.
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "yes", "Enter")
    assert.deepInclude(await resume(c, pane, runId, 10), { exit_status: 0 })
  })

  it("the pane killed: pane gone", async () => {
    const { world, c, pane } = await own.open()
    // Another session keeps the server up.
    world.tmux("libtmux-mcp", "new-session", "-d", "-s", "keep")
    const runId = await timedOut(c, pane, "sleep 30")
    const waited = startWait(world, [runId, "--pane", pane, "--timeout", "30"])
    world.tmux("libtmux-mcp", "kill-pane", "-t", pane)
    const done = await waited
    assert.strictEqual(done.code, 8, JSON.stringify(done))
    assert.strictEqual(done.stdout, `run ${runId}: pane ${pane} is gone (it was closed)\n`)
  })

  it("the tmux server killed: server gone", async () => {
    const { world, c, pane } = await own.open()
    const runId = await timedOut(c, pane, "sleep 30")
    const waited = startWait(world, [runId, "--pane", pane, "--timeout", "30"])
    world.tmux("libtmux-mcp", "kill-server")
    const done = await waited
    assert.strictEqual(done.code, 9, JSON.stringify(done))
    assert.strictEqual(done.stdout, `run ${runId}: the tmux server on name:libtmux-mcp is gone\n`)
  })

  it("the pane respawned while the watcher waits: pane gone", async () => {
    const { world, c, pane } = await own.open()
    const runId = await timedOut(c, pane, "sleep 30")
    const watcher = startWatcher(world, [runId, "--pane", pane, "--timeout", "15"])
    await waitingClient(watcher.pid, runId)
    world.tmux("libtmux-mcp", "respawn-pane", "-k", "-t", pane)
    assert.deepStrictEqual(await watcher.exited, {
      code: 8,
      stdout: `run ${runId}: pane ${pane} is gone (it was respawned since the run was typed)\n`,
      stderr: ""
    })
  })

  it("the tmux server killed while the watcher waits: server gone, not pane gone", async () => {
    const { world, c, pane } = await own.open()
    const runId = await timedOut(c, pane, "sleep 30")
    const watcher = startWatcher(world, [runId, "--pane", pane, "--timeout", "15"])
    await waitingClient(watcher.pid, runId)
    world.tmux("libtmux-mcp", "kill-server")
    assert.deepStrictEqual(await watcher.exited, {
      code: 9,
      stdout: `run ${runId}: the tmux server on name:libtmux-mcp is gone\n`,
      stderr: ""
    })
  })

  for (const signal of ["SIGKILL", "SIGTERM"] as const) {
    it(`a watcher ended by ${signal} leaves no tmux client waiting`, async () => {
      const { world, c, pane } = await own.open()
      const runId = await timedOut(c, pane, "sleep 30")
      const watcher = startWatcher(world, [runId, "--pane", pane])
      const client = await waitingClient(watcher.pid, runId)
      // The node process, under sh or sh itself when it ran the command in its place.
      const node = [watcher.pid, ...processTree(watcher.pid).map((child) => child.pid)].find((pid) =>
        readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes("wait")
      )!
      process.kill(node, signal)
      await until(`the watcher's tmux client gone after ${signal}`, () => !running(client))
      await watcher.exited
    })
  }

  it("an unknown run ID, and a run another call collected", async () => {
    const { world, c, pane } = await own.open()
    assert.deepStrictEqual(await startWait(world, ["abcdef", "--pane", pane, "--timeout", "10"]), {
      code: 6,
      stdout: `run abcdef is unknown on pane ${pane}: no record of it and no mark of its collection\n`,
      stderr: ""
    })
    assert.deepInclude(await run(c, pane, "exit 5"), { exit_status: 5 })
    // The pane's mark of its last collected run names it.
    const collected = world.tmux("libtmux-mcp", "show", "-pv", "-t", pane, "@lmcp_done").split(" ")[0]!
    assert.deepStrictEqual(await startWait(world, [collected, "--pane", pane, "--timeout", "10"]), {
      code: 7,
      stdout: `run ${collected} was already collected: exit status 5\n`,
      stderr: ""
    })
  })

  it("a run collected as another's earlier_run, that one collected too: collected, with its status", async () => {
    const { world, c, pane } = await own.open()
    const go = join(world.dir, "go-earlier")
    const runId = await timedOut(c, pane, `until [ -e ${shellQuote(go)} ]; do sleep 0.05; done; exit 3`)
    writeFileSync(go, "")
    await until("the run's end record", () => ended(world, pane, runId), (value) => value !== "")
    // The next command reports it as its earlier_run, and is collected in turn: the pane's newest mark is its.
    const next = await run(c, pane, "exit 4")
    assert.deepInclude(next, { exit_status: 4, earlier_run: { run_id: runId, exit_status: 3 } })
    assert.deepStrictEqual(await startWait(world, [runId, "--pane", pane, "--timeout", "10"]), {
      code: 7,
      stdout: `run ${runId} was already collected: exit status 3\n`,
      stderr: ""
    })
  })

  it("two watchers on one run both see its end", async () => {
    const { world, c, pane } = await own.open()
    const runId = await timedOut(c, pane, "sleep 3; exit 6")
    const both = await Promise.all([0, 1].map(() => startWait(world, [runId, "--pane", pane, "--timeout", "30"])))
    for (const done of both) {
      assert.deepStrictEqual(done, { code: 0, stdout: `run ${runId} ended: exit status 6\n`, stderr: "" })
    }
    assert.deepInclude(await resume(c, pane, runId, 10), { exit_status: 6 })
  })

  it("a bad invocation is refused with exit code 1, naming what is valid", async () => {
    const { world, pane } = await own.open()
    const done = await startWait(world, ["xyz", "--pane", pane])
    assert.strictEqual(done.code, 1, JSON.stringify(done))
    assert.include(done.stderr, "is not a run ID (six hex digits")
    assert.strictEqual(done.stdout, "")
  })

  it("a socket the server would refuse is refused before any tmux client connects", async () => {
    const { world, pane } = await own.open()
    const open = join(world.dir, "open")
    mkdirSync(open)
    chmodSync(open, 0o777)
    const done = await startWait(world, ["abcdef", "--pane", pane, "--socket", `path:${open}/sock`])
    assert.strictEqual(done.code, 1, JSON.stringify(done))
    assert.match(done.stderr, /^libtmux-mcp: folder .*open on the way to the tmux socket has mode 0777/u)
    assert.strictEqual(done.stdout, "")
  })

  it("--help lists wait and its exit codes", async () => {
    const { world } = await own.open()
    const done = await startWait(world, ["--help"])
    assert.strictEqual(done.code, 0)
    assert.include(done.stdout, "Usage: libtmux-mcp wait RUN_ID --pane %N")
    for (const code of [0, 1, 3, 4, 5, 6, 7, 8, 9, 255]) assert.match(done.stdout, new RegExp(`\\n  ${code} +\\S`, "u"))
  })
})

// It reads the pane's whole state every few milliseconds through the watchers' lives: alone, after the others.
describe("libtmux-mcp wait, reading the pane", () => {
  it("the watcher changes nothing: the pane's options, history and screen stay as they were", async () => {
    const { world, c, pane } = await own.open()
    const state = () =>
      [
        world.tmux("libtmux-mcp", "show-options", "-p", "-t", pane),
        world.tmux("libtmux-mcp", "capture-pane", "-p", "-e", "-S", "-", "-E", "-", "-t", pane),
        world.tmux("libtmux-mcp", "display", "-p", "-t", pane, "#{cursor_x},#{cursor_y},#{history_size},#{pane_mode}")
      ].join("\n--\n")
    let last = ""
    const atRest = () =>
      until("the pane at rest", () => {
        const now = state()
        const same = now === last
        last = now
        return same ? now : undefined
      }, (now) =>
        now !== undefined, { intervalMs: 150 })
    // While the run goes on (until the test lets it end): a watcher that waits until its --timeout.
    const go = join(world.dir, "go")
    const runId = await timedOut(c, pane, `until [ -e ${shellQuote(go)} ]; do sleep 0.1; done; echo finished; exit 3`)
    const running = await atRest()
    const timed = startWait(world, [runId, "--pane", pane, "--timeout", "1"])
    await holdsFor(timed, "the pane unchanged while the watcher waits", () => state() === running)
    assert.strictEqual((await timed).code, 5)
    writeFileSync(go, "")
    // Once the run ended: a watcher answered at once.
    await until("the run's end record", () => ended(world, pane, runId), (value) => value !== "", {
      timeoutMs: 30_000
    })
    const done = await atRest()
    const answered = startWait(world, [runId, "--pane", pane, "--timeout", "20"])
    await holdsFor(answered, "the pane unchanged while the watcher reads the ended run", () => state() === done)
    assert.strictEqual((await answered).code, 0)
    assert.deepInclude(await resume(c, pane, runId, 10), { exit_status: 3, output: "finished" })
  })
})

/** The environment the first server of `open` ran with (its shell configuration), for a second one. */
const serverEnvOf = (world: TmuxWorld): Record<string, string> => ({
  LIBTMUX_TMUX_CONFIG: `${world.dir}/tmux-_bin_bash.conf`,
  HOME: world.dir,
  SHELL: "/bin/bash",
  LIBTMUX_TOOLSETS: "inspect,manage,execute,teardown"
})
