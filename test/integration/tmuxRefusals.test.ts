/**
 * The refusals the tmux here prints (3.3a in CI) read as the unit test's messages say
 * (test/unit/tmuxRefusals.test.ts): each captured again from a real server on an isolated socket.
 */
import { spawn, spawnSync } from "node:child_process"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "vitest"
import { tmuxRefusal } from "../../src/domain/tmuxRefusals.ts"
import { staleChange, typingGuard } from "../../src/domain/typingGuard.ts"
import { until } from "../support/poll.ts"
import { makeWorld } from "../support/tmux.ts"

const world = makeWorld("refusals")
afterAll(() => world.dispose())

/** What tmux prints on standard error for `args` on the world's socket `socket`. */
const stderrOf = (socket: string, ...args: ReadonlyArray<string>) => {
  const result = spawnSync("tmux", ["-S", socket, "-f", "/dev/null", ...args], {
    env: world.env,
    encoding: "utf8"
  })
  assert.notStrictEqual(result.status, 0, args.join(" "))
  return result.stderr.trim()
}

describe("tmux's refusals, from the tmux here", () => {
  it("reads every refusal the server prints", () => {
    const socket = world.socketPath("s")
    world.tmux("s", "new-session", "-d", "-s", "work", "-x", "80", "-y", "24")
    const pane = world.tmux("s", "display-message", "-p", "-t", "work", "#{pane_id}").trim()
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, ReturnType<typeof tmuxRefusal>]> = [
      [["set-option", "-p", "-o", "-t", pane, "@c", "a", ";", "set-option", "-p", "-o", "-t", pane, "@c", "b"], {
        _tag: "AlreadySet",
        option: "@c"
      }],
      [["set-option", "-pu", "-t", pane, "#{?#{==:1,2},@lmcp_view_ok,lmcp-run-collected}"], {
        _tag: "InvalidOption",
        option: "lmcp-run-collected"
      }],
      [["show-options", "-p", "-t", pane, "@nope"], { _tag: "InvalidOption", option: "@nope" }],
      [["show-hooks", "-g", "--", "nosuch-hook"], { _tag: "InvalidOption", option: "nosuch-hook" }],
      [["show-options", "-g", "status-"], { _tag: "AmbiguousOption", option: "status-" }],
      [["capture-pane", "-p", "-t", "%99"], { _tag: "TargetMissing", kind: "pane", target: "%99" }],
      [["list-panes", "-t", "@99"], { _tag: "TargetMissing", kind: "window", target: "@99" }],
      [["list-windows", "-t", "$99"], { _tag: "TargetMissing", kind: "session", target: "$99" }],
      [["set-option", "-p", "-t", "%99", "@a", "b"], { _tag: "TargetMissing", kind: "pane", target: "%99" }],
      [["new-session", "-d", "-s", "work"], { _tag: "DuplicateSession", name: "work" }],
      [["show-environment", "-g", "NOPE_X"], { _tag: "UnknownVariable", name: "NOPE_X" }],
      [["show-hooks", "-g", "a", "b"], { _tag: "TooManyArguments", command: "show-hooks" }],
      [["nosuchcmd"], { _tag: "UnknownCommand", name: "nosuchcmd" }]
    ]
    for (const [args, refusal] of cases) {
      assert.deepStrictEqual(tmuxRefusal(stderrOf(socket, ...args)), refusal, args.join(" "))
    }
  })

  it("reads the typing guard's refusal as what changed in the pane, and its pass as nothing", () => {
    const socket = world.socketPath("g")
    // A program that draws nothing: a shell's prompt could move the cursor between the look and the guard.
    world.tmux("g", "new-session", "-d", "-s", "guard", "-x", "80", "-y", "24", "cat")
    const state = world.tmux("g", "display-message", "-p", "-t", "guard", "#{pane_id} #{pane_pid} #{cursor_x}").trim()
    const [pane = "", pid = "", cursorX = ""] = state.split(" ")
    const seen = { panePid: Number(pid), cursorX: Number(cursorX), width: 80, height: 24, generation: "" }
    // As seen: the guard unsets an option nothing sets, and the list goes on.
    assert.strictEqual(world.tmux("g", ...typingGuard(pane, seen), ";", "display-message", "-p", "on"), "on\n")
    const refusal = tmuxRefusal(stderrOf(socket, ...typingGuard(pane, { ...seen, width: 100, generation: "4" })))
    // What tmux saw is the pane as it is: nothing differs from that.
    assert.deepStrictEqual(staleChange(refusal, seen), { respawned: false, changes: [] })
    assert.deepStrictEqual(staleChange(refusal, { ...seen, width: 100, generation: "4" }), {
      respawned: false,
      changes: ["it is 80x24, was 100x24", "another run was typed into it"]
    })
    assert.isUndefined(staleChange({ _tag: "InvalidOption", option: "@nope" }, seen))
    assert.isUndefined(staleChange({ _tag: "AlreadySet", option: "lmcp-pane-changed:1:0:0:0:0:80x24:g" }, seen))
  })

  it("reads a socket with no server, and a server that died under a waiting client, as no server", async () => {
    assert.deepStrictEqual(tmuxRefusal(stderrOf(world.socketPath("none"), "list-sessions")), { _tag: "ServerAbsent" })
    const stale = join(world.dir, "stale")
    writeFileSync(stale, "")
    assert.deepStrictEqual(tmuxRefusal(stderrOf(stale, "list-sessions")), { _tag: "ServerAbsent" })
    world.tmux("d", "new-session", "-d", "-s", "dies")
    const serverPid = Number(world.tmux("d", "display-message", "-p", "#{pid}").trim())
    // The option set, its list is at the wait-for.
    const waiter = spawn("tmux", ["-S", world.socketPath("d"), "set", "-g", "@ready", "1", ";", "wait-for", "never"], {
      env: world.env
    })
    let stderr = ""
    waiter.stderr.on("data", (chunk: Buffer) => stderr += chunk.toString())
    // "close", not "exit": the process can exit before its stderr is read to the end.
    const exited = new Promise<number | null>((resolve) => waiter.on("close", resolve))
    await until("the client waiting", () => world.tmux("d", "show-options", "-gv", "@ready").trim(), (v) => v === "1")
    process.kill(serverPid, "SIGKILL")
    assert.strictEqual(await exited, 1)
    assert.deepStrictEqual(tmuxRefusal(stderr.trim()), { _tag: "ServerAbsent" }, stderr)
  })
})
