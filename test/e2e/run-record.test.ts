/**
 * A run's record and its claim live in tmux, so a run outlives its call, its server process and
 * its neighbours: a finished run never blocks its pane, a restarted server answers resume, two
 * servers on one socket never type into the same shell at once, and a trailer that cannot use the
 * shell's TMUX still reports.
 */
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { paneRunOptions } from "../../src/domain/protocolNames.ts"
import { shellQuote } from "../../src/domain/quote.ts"
import { absent, call, type Connected, structured, textOf } from "../support/mcp.ts"
import { until } from "../support/poll.ts"
import { rounds } from "../support/rounds.ts"
import { lateReadsTmux, leftovers, resume, run, runHarness } from "../support/runs.ts"
import { missingHere, shellEnv } from "../support/shells.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const h = runHarness("record")
// A test with one server that is not about its process builds it in process (one server per
// test: the record's instance tags would not tell two in-process servers apart).
const one = runHarness("record", { inProcess: true })
/** Waits until the server's only held run has finished; that run's record. */
const finished = (c: Connected) =>
  until(
    "the held run to finish",
    async () => (structured(await call(c, "get_server_info")).held_runs ?? [])[0],
    (held) => held?.exit_status !== null
  )
/** How many tmux clients of `world` wait on a run's channel (`runId`'s, or any run's). */
const waiters = (world: TmuxWorld, runId = "[0-9a-f]{6}") =>
  readdirSync("/proc").filter((pid) => {
    try {
      const argv = /^[0-9]+$/u.test(pid) ? readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0") : []
      return argv.some((arg) => new RegExp(`^lmcp_${runId}$`, "u").test(arg)) &&
        readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(`TMUX_TMPDIR=${world.dir}`)
    } catch {
      return false
    }
  }).length
const tag = (result: { readonly _meta?: Record<string, unknown> | undefined }) =>
  result._meta?.["com.git-pull.libtmux-mcp/error"]

/**
 * Makes the server's tmux a wrapper under which an invocation whose arguments match the `case`
 * pattern runs whole, then fails as a lost client would: its output dropped, exit status 1.
 */
const failingTmux = (
  world: TmuxWorld,
  env: Record<string, string | undefined>,
  pattern: string,
  /** Invocations that match this run as they are, even when they match `pattern` too. */
  spared?: string
) => {
  const wrapper = join(world.dir, "failing-tmux")
  writeFileSync(
    wrapper,
    [
      "#!/bin/sh",
      `case "$*" in ${spared === undefined ? "" : `${spared}) ;; `}${pattern})`,
      `  tmux "$@" >/dev/null; echo "lost connection" >&2; exit 1;;`,
      "esac",
      `exec tmux "$@"`,
      ""
    ].join("\n")
  )
  chmodSync(wrapper, 0o755)
  env.LIBTMUX_TMUX_BIN = wrapper
}

describe("a run's record in tmux", () => {
  it("a timed-out run is listed while held; once finished it blocks nothing: the next command reports it", async () => {
    const { world, c, pane } = await one.open()
    // The run ends once the test says so (a loaded machine can answer a 0.3 s timeout a second late).
    const command = `while [ ! -e ${shellQuote(join(world.dir, "go"))} ]; do sleep 0.05; done; echo first`
    const timed = await run(c, pane, command, { timeout: 0.3 })
    assert.isTrue(timed.timed_out)
    const listed = structured(await call(c, "get_server_info")).held_runs ?? []
    assert.deepInclude(listed, {
      pane_id: pane,
      run_id: timed.run_id,
      command_prefix: command.slice(0, 24),
      command_digest: createHash("sha256").update(command).digest("hex").slice(0, 12),
      holds_pane: true,
      exit_status: null
    })
    writeFileSync(join(world.dir, "go"), "")
    assert.deepInclude(await finished(c), { holds_pane: false, exit_status: 0 })
    const next = await run(c, pane, "echo after", { timeout: 10 })
    assert.deepInclude(next, { output: "after", exit_status: 0 })
    assert.deepStrictEqual(next.earlier_run, { run_id: timed.run_id, exit_status: 0 })
    absent(structured(await call(c, "get_server_info")), "held_runs")
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  for (const how of ["SIGKILL", "a clean exit"] as const) {
    it(`a server restarted after ${how} answers resume of a run the previous process typed`, async () => {
      const { world, c, pane } = await h.open()
      const timed = await run(c, pane, "sleep 1; echo done", { timeout: 0.3 })
      assert.isTrue(timed.timed_out)
      if (how === "SIGKILL") process.kill(c.pid!()!, "SIGKILL")
      else await c.close()
      const again = await h.connect(world, shellEnv(world, "/bin/bash"))
      assert.deepInclude(await resume(again, pane, timed.run_id, 10), { exit_status: 0, output: "done" })
      assert.deepStrictEqual(leftovers(world, pane), [])
    })
  }

  it("a server SIGKILLed during a wait: its orphaned waiter collects nothing; a new server answers", async () => {
    const { world, c, pane } = await h.open()
    const answer = call(c, "run_shell_command", { pane_id: pane, command: "sleep 1.5; echo survived", timeout: 20 })
    answer.catch(() => undefined)
    const runId = await until(
      "the run to hold the pane",
      () => world.tryTmux("libtmux-mcp", "show", "-pv", "-t", pane, "@lmcp_claim")?.trim() ?? "",
      (claim) => /^[0-9a-f]{6}$/u.test(claim)
    )
    process.kill(c.pid!()!, "SIGKILL")
    // The run ends, and its waiting tmux client, whose server is gone, runs the rest of its list and exits.
    await until(
      "the run's status report and its orphaned waiter gone",
      () => ({
        claim: world.tryTmux("libtmux-mcp", "show", "-pv", "-t", pane, "@lmcp_claim") ?? "",
        waiters: waiters(world, runId)
      }),
      ({ claim, waiters }) => claim.trim() === "" && waiters === 0
    )
    const again = await h.connect(world, shellEnv(world, "/bin/bash"))
    assert.deepInclude((structured(await call(again, "get_server_info")).held_runs ?? [])[0], {
      run_id: runId,
      exit_status: 0
    })
    assert.deepInclude(await resume(again, pane, runId, 10), { exit_status: 0, output: "survived" })
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("a waiter whose answer comes late, its list resumed after the watcher saw the end: one answer", async () => {
    const { world, c, pane } = await h.open("/bin/bash", {}, (world, env) => {
      // The waiting client's list goes on a second after the signal and its output reaches the
      // server two seconds later; the read-back that collects waits 1.5 s: the watcher sees the
      // end record first, and the waiter's list runs between that and the collection.
      const wrapper = join(world.dir, "late-tmux")
      writeFileSync(
        wrapper,
        [
          "#!/bin/sh",
          `case "$*" in *"wait-for lmcp_"*)`,
          `  out="${world.dir}/held.$$"; n=$#; prev=`,
          `  for a in "$@"; do set -- "$@" "$a"`,
          `    [ "$prev" = wait-for ] && [ "$a" != -S ] && set -- "$@" ";" run-shell "sleep 1"; prev=$a; done`,
          `  shift $n; tmux "$@" >"$out"; rc=$?; sleep 2; cat "$out"; rm -f "$out"; exit $rc;;`,
          `*-pu*@lmcp_run_*) sleep 1.5;;`,
          "esac",
          `exec tmux "$@"`,
          ""
        ].join("\n")
      )
      chmodSync(wrapper, 0o755)
      ;(env as Record<string, string>).LIBTMUX_TMUX_BIN = wrapper
    })
    const answer = await call(c, "run_shell_command", { pane_id: pane, command: "echo raced", timeout: 20 })
    assert.deepInclude(structured(answer), { exit_status: 0, output: "raced" })
    await until("the late waiter gone", () => waiters(world), (count) => count === 0)
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("a resume of a collected run is told by the pane's mark, each time, after a restart too", async () => {
    const { world, c, pane } = await h.open()
    const timed = await run(c, pane, "sleep 2; (exit 3)", { timeout: 1 })
    assert.isTrue(timed.timed_out)
    assert.deepInclude(await resume(c, pane, timed.run_id, 10), { exit_status: 3 })
    const collected = (server: Connected) =>
      call(server, "run_shell_command", { pane_id: pane, resume: timed.run_id, timeout: 5 })
    const told = async (server: Connected) => {
      const refused = await collected(server)
      assert.strictEqual(tag(refused), "RunCollected", textOf(refused))
      assert.match(textOf(refused), /already collected by server process [0-9]+ at .*exit status 3.*earlier answer/u)
      assert.include(textOf(refused), "cannot be resumed or read again")
    }
    await told(c)
    await told(c)
    assert.deepInclude((structured(await call(c, "get_server_info")).collected_runs ?? [])[0], {
      pane_id: pane,
      run_id: timed.run_id,
      exit_status: 3,
      ended: "reported",
      collected_by: c.pid!()!
    })
    process.kill(c.pid!()!, "SIGKILL")
    const again = await h.connect(world, shellEnv(world, "/bin/bash"))
    await told(again)
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("two concurrent resumes of one finished run: one gets its result, the others say it was collected", async () => {
    const { world, c, pane } = await h.open()
    const timed = await run(c, pane, "sleep 0.6; echo once", { timeout: 0.2 })
    const other = await h.connect(world, shellEnv(world, "/bin/bash"))
    await finished(c)
    const answers = await Promise.all(
      [c, other, c].map((server) =>
        call(server, "run_shell_command", { pane_id: pane, resume: timed.run_id, timeout: 10 })
      )
    )
    const results = answers.filter((answer) => answer.isError !== true).map(structured)
    assert.lengthOf(results, 1, JSON.stringify(answers.map(textOf)))
    assert.deepInclude(results[0], { output: "once", exit_status: 0 })
    for (const refused of answers.filter((answer) => answer.isError === true)) {
      assert.strictEqual(tag(refused), "RunCollected", textOf(refused))
      assert.include(textOf(refused), "collected")
    }
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("a run another server collects before the call that typed it reads it: RunCollected, not resume", async () => {
    // This server's waiting client reads a second after the signal, and its other reads of the run
    // start 1.5 s late: the other server, waiting too, collects the run first.
    const { world, c, pane } = await h.open(
      "/bin/bash",
      {},
      (world, env) => lateReadsTmux(world, env, { readLate: 1, endLate: 1.5 })
    )
    const other = await h.connect(world, shellEnv(world, "/bin/bash"))
    const typed = call(c, "run_shell_command", { pane_id: pane, command: "sleep 2; echo raced", timeout: 20 })
    const held = await until(
      "the run to be typed",
      async () => (structured(await call(other, "get_server_info")).held_runs ?? [])[0],
      (run) => run !== undefined
    )
    const collected = await resume(other, pane, held.run_id, 20)
    assert.deepInclude(collected, { output: "raced", exit_status: 0 })
    const refused = await typed
    assert.strictEqual(tag(refused), "RunCollected", textOf(refused))
    assert.include(textOf(refused), `run ${held.run_id} in pane ${pane} was already collected by server process`)
    assert.include(textOf(refused), "it ended with exit status 0")
    assert.notInclude(textOf(refused), "resume \"")
    await until("no waiter left", () => waiters(world), (count) => count === 0)
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("a typing client that fails once the run ended: the answer carries the run's status and output", async () => {
    const { world, c, pane } = await one.open("/bin/bash", {}, (world, env) => {
      // The invocation that types and waits runs whole, then fails as a lost read would: its output
      // dropped, tmux's exit status 1. The run ended and is recorded; nothing collected it.
      failingTmux(world, env, `*paste-buffer*"wait-for lmcp_"*`)
    })
    const answer = await call(c, "run_shell_command", { pane_id: pane, command: "echo read; (exit 7)", timeout: 20 })
    assert.deepInclude(structured(answer), { exit_status: 7, output: "read" }, textOf(answer))
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("a resume whose waiting client fails once the run ended: the answer carries its status and output", async () => {
    const { world, c, pane } = await one.open("/bin/bash", {}, (world, env) => {
      // The resume's waiting invocation (no paste: the typing list's passes) runs whole, then fails as a
      // lost client would: the run ended and is recorded; nothing collected it. Waits are forked clients.
      Object.assign(env, { LIBTMUX_TRANSPORT: "spawn" })
      failingTmux(world, env, `*"wait-for lmcp_"*`, "*paste-buffer*")
    })
    const go = join(world.dir, "go")
    const timed = await run(c, pane, `until [ -e ${shellQuote(go)} ]; do sleep 0.05; done; echo read; (exit 7)`, {
      timeout: 0.3
    })
    assert.isTrue(timed.timed_out)
    writeFileSync(go, "")
    const answer = await call(c, "run_shell_command", { pane_id: pane, resume: timed.run_id, timeout: 20 })
    assert.deepInclude(structured(answer), { exit_status: 7, output: "read" }, textOf(answer))
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("a collection whose tmux client fails once it ran: the answer carries the run's status and output", async () => {
    const { world, c, pane } = await one.open("/bin/bash", {}, (world, env) => {
      // The invocation that collects the run (it leaves the pane's mark of it) runs whole, then fails
      // as a lost client would: the run is collected, its result in the call's hands.
      failingTmux(world, env, `*"${paneRunOptions.collected} "*`)
    })
    const answer = await call(c, "run_shell_command", { pane_id: pane, command: "echo read; (exit 7)", timeout: 20 })
    assert.deepInclude(structured(answer), { exit_status: 7, output: "read" }, textOf(answer))
    assert.deepStrictEqual(leftovers(world, pane), [])
  })

  it("two servers on one socket never type into the same shell at once", async () => {
    const { world, c, pane } = await h.open()
    const other = await h.connect(world, shellEnv(world, "/bin/bash"))
    const attempt = async (server: Connected, marker: string) => {
      const result = await call(server, "run_shell_command", { pane_id: pane, command: `echo ${marker}`, timeout: 20 })
      if (result.isError === true) {
        // Refused, naming the other server's run: nothing of it was typed.
        assert.strictEqual(tag(result), "PaneNotReady", textOf(result))
        assert.match(textOf(result), /run [0-9a-f]{6}/u)
        return "refused"
      }
      assert.deepInclude(
        structured(result),
        { output: marker, exit_status: 0 },
        `${marker}: ${JSON.stringify(structured(result))}`
      )
      return "ran"
    }
    const outcomes: Array<string> = []
    const races = rounds(25, 200)
    for (let round = 0; round < races; round++) {
      outcomes.push(...await Promise.all([attempt(c, `first-${round}`), attempt(other, `second-${round}`)]))
    }
    assert.isAtLeast(outcomes.filter((outcome) => outcome === "ran").length, races)
    const screen = world.tmux("libtmux-mcp", "capture-pane", "-p", "-J", "-S", "-", "-t", pane)
    for (const line of screen.split("\n")) {
      assert.isFalse(line.includes("echo first-") && line.includes("echo second-"), `two commands on one line: ${line}`)
    }
    assert.deepStrictEqual(leftovers(world, pane), [])
  })
})

describe("a pane that changes as a run is about to type", () => {
  for (const path of ["first contact (a look)", "a ready pane this server ran in (no look)"] as const) {
    it(`respawned between readiness and typing, after ${path}: nothing typed, and the refusal says so`, async () => {
      const { world, c, pane } = await one.open()
      if (path !== "first contact (a look)") assert.deepInclude(await run(c, pane, "true"), { exit_status: 0 })
      // tmux runs the hook right after the typing list's load, before the rest of that list: the
      // pane's process is replaced there. The load is a load-buffer in a spawned client, a set-buffer
      // over the control connection (platform/TmuxControl.ts).
      for (const hook of ["after-load-buffer", "after-set-buffer"]) {
        world.tmux(
          "libtmux-mcp",
          "set-hook",
          "-g",
          hook,
          `set-hook -gu after-load-buffer ; set-hook -gu after-set-buffer ; respawn-pane -k -t ${pane}`
        )
      }
      const marker = join(world.dir, "typed")
      const refused = await call(c, "run_shell_command", {
        pane_id: pane,
        command: `echo x > ${shellQuote(marker)}`,
        timeout: 10
      })
      assert.isTrue(refused.isError, textOf(refused))
      assert.strictEqual(tag(refused), "PaneNotReady")
      assert.match(textOf(refused), /respawned.*nothing was typed/u)
      // A later run in the same shell is the barrier: anything typed before it has run by its end.
      assert.deepInclude(await run(c, pane, "echo fresh", { timeout: 10 }), { output: "fresh", exit_status: 0 })
      assert.isFalse(existsSync(marker), "the command ran in the respawned pane")
      assert.notInclude(world.tmux("libtmux-mcp", "capture-pane", "-p", "-S", "-", "-t", pane), "echo x")
      assert.deepStrictEqual(leftovers(world, pane), [])
    })
  }
})

describe("a trailer that cannot use the shell's TMUX", () => {
  it("reports through a socket path that contains a comma", async () => {
    const world = one.world()
    const folder = join(world.dir, "a,b")
    mkdirSync(folder, { mode: 0o700 })
    const socket = `${folder}/sock`
    try {
      const c = await one.connect(world, { ...shellEnv(world, "/bin/bash"), LIBTMUX_SOCKET: `path:${socket}` })
      const pane = structured(
        await call(c, "create_session", { session_name: "comma", start_directory: world.dir })
      ).pane_id as string
      assert.deepInclude(await run(c, pane, "echo comma", { timeout: 10 }), { output: "comma", exit_status: 0 })
    } finally {
      // The world removes the servers on its own sockets; this one is elsewhere.
      spawnSync("tmux", ["-S", socket, "kill-server"])
    }
  })

  it("under inherit, reaches and reports through a $TMUX whose socket path contains a comma", async () => {
    const world = one.world()
    const folder = join(world.dir, "c,d")
    mkdirSync(folder, { mode: 0o700 })
    const socket = `${folder}/sock`
    const env = shellEnv(world, "/bin/bash")
    try {
      // The tmux server this server runs inside of, as its own pane's shell would see it.
      spawnSync("tmux", ["-S", socket, "-f", env.LIBTMUX_TMUX_CONFIG!, "new-session", "-d", "-s", "outer"], {
        env: { ...world.env }
      })
      const { LIBTMUX_TMUX_CONFIG: _config, ...rest } = env
      const c = await one.connect(world, { ...rest, LIBTMUX_SOCKET: "inherit", TMUX: `${socket},4242,0` })
      const panes = structured(await call(c, "list_panes", {})).panes as Array<{ pane_id: string }>
      assert.lengthOf(panes, 1, "the server at the comma path, not another one")
      const pane = panes[0]!.pane_id
      assert.deepInclude(await run(c, pane, "echo inherited", { timeout: 10 }), { output: "inherited", exit_status: 0 })
      assert.deepInclude(await run(c, pane, "echo again", { timeout: 10 }), { output: "again", exit_status: 0 })
      const options = spawnSync("tmux", ["-S", socket, "show", "-p", "-t", pane]).stdout.toString()
      assert.notMatch(options, /@lmcp_(run|claim|last|typed|end)/u, "a collected run leaves nothing")
    } finally {
      spawnSync("tmux", ["-S", socket, "kill-server"])
    }
  })

  it.skipIf(missingHere("/usr/bin/fish"))(
    "reports after the command removes TMUX from fish itself, and bash's unset stays in its subshell",
    async () => {
      for (
        const [shell, command] of [["/usr/bin/fish", "set -e TMUX; echo gone"], ["/bin/bash", "unset TMUX; echo gone"]]
      ) {
        const { c, pane } = await one.open(shell)
        assert.deepInclude(await run(c, pane, command!, { timeout: 10 }), { output: "gone", exit_status: 0 }, shell)
        assert.deepInclude(
          await run(c, pane, "echo again", { timeout: 10 }),
          { output: "again", exit_status: 0 },
          shell
        )
      }
    }
  )
})
