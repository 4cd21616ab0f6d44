/**
 * Issue 23, item 4, through the built server: run_shell_command judges a pane's process by what it
 * is, not by its name or by a /proc that is not the pane's. A program named `bash` that is a
 * Python REPL is refused, and so is a pane of a tmux server in another pid namespace (started
 * under `unshare --pid`, which needs root: skipped with the reason otherwise).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { chmodSync, copyFileSync, mkdirSync, realpathSync, symlinkSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { call, structured, textOf } from "../support/mcp.ts"
import { until } from "../support/poll.ts"
import { runHarness } from "../support/runs.ts"
import { shellEnv } from "../support/shells.ts"

const h = runHarness("proc-view")

const python = (() => {
  try {
    return realpathSync(
      execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim()
    )
  } catch {
    return undefined
  }
})()

const canUnshare = (() => {
  try {
    execFileSync("unshare", ["--pid", "--fork", "--mount-proc", "true"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
})()

describe("the pane's process, judged by what it is", () => {
  const named = "refuses a program named bash that is not a shell, and types nothing into it"
  it.skipIf(python === undefined)(python === undefined ? `${named} (skipped: no python3)` : named, async () => {
    const { world, c, pane } = await h.open("/bin/bash", {}, (world, env) => {
      const bin = join(world.dir, "fake")
      mkdirSync(bin)
      symlinkSync(python!, join(bin, "bash"))
      Object.assign(env, shellEnv(world, join(bin, "bash")))
    })
    await until(
      "python's prompt",
      () => world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", pane),
      (screen) => screen.includes(">>>")
    )
    assert.include(world.tmux("libtmux-mcp", "display", "-p", "-t", pane, "#{pane_current_command}"), "bash")
    const result = await call(c, "run_shell_command", { pane_id: pane, command: "print('typed' + 'in')" })
    assert.isTrue(result.isError)
    assert.include(textOf(result), "named bash but runs python3", textOf(result))
    assert.notInclude(world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", pane), "print(")
    // The capabilities say what is checked, and what this system hides (nothing, on CI's kernel).
    const resource = await c.client.readResource({ uri: "tmux://capabilities" })
    const view = JSON.parse((resource.contents[0] as { text: string }).text).process_view
    assert.isTrue(view.proc)
    assert.lengthOf(view.checked_per_call, 2)
    assert.deepStrictEqual(view.cannot_see.length, (view.wchan ? 0 : 1) + (view.child_lists ? 0 : 1))
  })

  const copied = "refuses a copy of python3 named bash (issue 58, item 7): its file is no shell of this system"
  it.skipIf(python === undefined)(python === undefined ? `${copied} (skipped: no python3)` : copied, async () => {
    // The pane's shell replaces itself with the copy: tmux started the pane with bash, not with it.
    const { world, c, pane } = await h.open()
    const copy = join(world.dir, "copied", "bash")
    mkdirSync(join(world.dir, "copied"))
    copyFileSync(python!, copy)
    chmodSync(copy, 0o755)
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "-l", `exec ${shellQuote(copy)}`)
    world.tmux("libtmux-mcp", "send-keys", "-t", pane, "Enter")
    await until(
      "python's prompt",
      () => world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", pane),
      (screen) => screen.includes(">>>")
    )
    const result = await call(c, "run_shell_command", { pane_id: pane, command: "print('typed' + 'in')" })
    assert.isTrue(result.isError)
    assert.include(textOf(result), "named bash but runs bash, which is not a shell of this system", textOf(result))
    assert.notInclude(world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", pane), "print(")
  })

  it("drives a shell outside /etc/shells and PATH that tmux started the pane with (a Nix, Homebrew one)", async () => {
    const { c, pane } = await h.open("/bin/bash", {}, (world, env) => {
      const own = join(world.dir, "profile", "bin")
      mkdirSync(own, { recursive: true })
      copyFileSync("/bin/bash", join(own, "bash"))
      chmodSync(join(own, "bash"), 0o755)
      Object.assign(env, shellEnv(world, join(own, "bash")))
    })
    const result = await call(c, "run_shell_command", { pane_id: pane, command: "echo driven", timeout: 20 })
    assert.deepInclude(structured(result), { exit_status: 0, output: "driven" }, textOf(result))
  })

  const namespaced = "refuses a pane whose processes live in another pid namespace: /proc here is not the pane's"
  it.skipIf(!canUnshare)(
    canUnshare ? namespaced : `${namespaced} (skipped: unshare --pid needs root, as in CI)`,
    async () => {
      const world = h.world()
      const env = shellEnv(world, "/bin/bash")
      let holder: ChildProcess | undefined
      try {
        // The namespace's first process stays (it is the namespace's init), so the tmux server lives on.
        holder = spawn("unshare", [
          "--pid",
          "--fork",
          "--mount-proc",
          "--kill-child",
          "sh",
          "-c",
          `tmux -L libtmux-mcp -f '${env.LIBTMUX_TMUX_CONFIG}' new-session -d -s ns; exec sleep 600`
        ], { env: { ...process.env, ...env, TMUX_TMPDIR: world.dir, TMUX: "" }, stdio: "ignore" })
        await until(
          "the session in the other namespace",
          () => world.tryTmux("libtmux-mcp", "has-session", "-t", "ns"),
          (
            out
          ) => out !== undefined
        )
        const c = await h.connect(world, env)
        const panes = structured(await call(c, "list_panes", { session_name: "ns" })).panes
        const result = await call(c, "run_shell_command", { pane_id: panes[0].pane_id, command: "echo typed-in" })
        assert.isTrue(result.isError)
        assert.include(textOf(result), "cannot be seen from here")
        assert.notInclude(world.tmux("libtmux-mcp", "capture-pane", "-p", "-t", panes[0].pane_id), "typed-in")
      } finally {
        world.tryTmux("libtmux-mcp", "kill-server")
        holder?.kill("SIGKILL")
      }
    }
  )
})
