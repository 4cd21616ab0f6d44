/**
 * What a shell's own state cannot do to run_shell_command's protocol, each case as it was reported:
 * a function named by tmux's path, xtrace and verbose on, a pane's options forged to name another
 * pane's run, and a run collected while an answer reads it.
 */
import { execFileSync } from "node:child_process"
import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { shellQuote } from "../../src/domain/quote.ts"
import { call, textOf } from "../support/mcp.ts"
import { leftovers, resume, run, runHarness } from "../support/runs.ts"
import { missingHere } from "../support/shells.ts"

const { open } = runHarness("shellstate", { inProcess: true })
const tmuxBin = execFileSync("sh", ["-c", "command -v tmux"]).toString().trim()
const tag = (result: { readonly _meta?: Record<string, unknown> | undefined }) =>
  result._meta?.["com.git-pull.libtmux-mcp/error"]

describe.concurrent("a shell function named by tmux's path", () => {
  for (
    const [shell, define] of [
      ["/bin/bash", `${tmuxBin}() { :; }`],
      ["/usr/bin/zsh", `${tmuxBin}() { : }`]
    ] as const
  ) {
    it.skipIf(missingHere(shell))(
      `does not run instead of the trailer's tmux in ${shell}: every run reports`,
      async () => {
        const { world, c, pane } = await open(shell)
        const defined = await call(c, "run_shell_command", {
          pane_id: pane,
          command: `${define}; echo defined`,
          in_shell: true,
          timeout: 10
        })
        assert.notStrictEqual(defined.isError, true, `${String(tag(defined))}: ${textOf(defined)}`)
        assert.deepInclude(await run(c, pane, `type '${tmuxBin}' | head -1`, { timeout: 10 }), {
          exit_status: 0,
          output: `${tmuxBin} is a ${shell.endsWith("zsh") ? "shell function" : "function"}`
        })
        assert.deepInclude(await run(c, pane, "echo ran; false", { timeout: 10 }), { exit_status: 1, output: "ran" })
        assert.deepInclude(await run(c, pane, "echo ran", { in_shell: true, timeout: 10 }), {
          exit_status: 0,
          output: "ran"
        })
        assert.deepStrictEqual(leftovers(world, pane), [])
      }
    )
  }
})

describe.concurrent("xtrace and verbose on in the shell", () => {
  for (const shell of ["/bin/bash", "/usr/bin/zsh"]) {
    it.skipIf(missingHere(shell))(
      `keep the protocol out of every output in ${shell}, and stay on for the user's own commands`,
      async () => {
        const { world, c, pane } = await open(shell)
        /** The output's lines with xtrace's prefix (bash `+ `, zsh `+zsh:3> `) cut off the lines it traced. */
        const traced = async (command: string, inShell: boolean) => {
          const result = await run(c, pane, command, { in_shell: inShell, timeout: 10 })
          assert.strictEqual(result.exit_status, 0, JSON.stringify(result))
          return (result.output as string).split("\n").map((line) => line.replace(/^\+(?:\S*> )?\s*/u, "+"))
        }
        assert.deepStrictEqual(await traced("set -x", true), [""])
        assert.deepStrictEqual(await traced("echo a", false), ["+echo a", "a"])
        assert.deepStrictEqual(await traced("echo b", true), ["+echo b", "b"])
        // The test is traced too, with $- expanded.
        assert.deepStrictEqual((await traced("[[ $- == *x* ]] && echo xtrace-on", true)).slice(1), [
          "+echo xtrace-on",
          "xtrace-on"
        ])
        assert.deepStrictEqual(await traced("set +x; set -v", true), ["+set +x"])
        assert.deepStrictEqual(await traced("echo c", false), ["c"])
        assert.deepStrictEqual(await traced("echo d", true), ["d"])
        assert.deepStrictEqual(await traced("case $- in *v*) echo verbose-on;; esac", true), ["verbose-on"])
        const screen = world.tmux("libtmux-mcp", "capture-pane", "-p", "-J", "-S", "-", "-t", pane).split("\n")
        assert.deepStrictEqual(screen.filter((row) => /^\+.*tmux/u.test(row)), [], "no trace of the protocol")
        assert.deepStrictEqual(leftovers(world, pane), [])
      }
    )
  }
})

describe.concurrent("a pane's options forged to name another pane's run", () => {
  for (const forged of ["@lmcp_last", "@lmcp_claim"] as const) {
    it(`a run on that pane collects nothing of the other pane's pending run (forged ${forged})`, async () => {
      const { world, c, pane } = await open()
      const tmux = (...args: ReadonlyArray<string>) => world.tmux("libtmux-mcp", ...args)
      const other = tmux("split-window", "-d", "-t", pane, "-P", "-F", "#{pane_id}").trim()
      const go = join(world.dir, "go")
      const pending = await run(c, other, `while [ ! -e ${shellQuote(go)} ]; do sleep 0.05; done; echo late`, {
        timeout: 3
      })
      assert.isTrue(pending.timed_out, JSON.stringify(pending))
      const id = pending.run_id as string
      // The other pane's record copied here, with a report and this pane's last run (or claim) naming it.
      tmux(
        "set-option",
        "-p",
        "-t",
        pane,
        `@lmcp_run_${id}`,
        tmux("show", "-pv", "-t", other, `@lmcp_run_${id}`).trim()
      )
      tmux("set-option", "-p", "-t", pane, `@lmcp_end_${id}`, "0 0 0 0")
      tmux("set-option", "-p", "-t", pane, forged, id)
      const here = await run(c, pane, "echo here", { timeout: 10 })
      assert.deepInclude(here, { exit_status: 0, output: "here" })
      assert.notProperty(here, "earlier_run")
      const left = tmux("show", "-p", "-t", other)
      assert.include(left, `@lmcp_run_${id} `)
      assert.include(left, `@lmcp_claim ${id}`)
      writeFileSync(go, "")
      assert.deepInclude(await resume(c, other, id, 10), { exit_status: 0, output: "late" })
      assert.deepStrictEqual(leftovers(world, other), [])
    })
  }
})

describe.concurrent("a run collected while an answer reads it", () => {
  it("leaves no empty record behind: the pane holds no @lmcp_run_ option for it", async () => {
    // A tmux that, for the answer's write of where it ended, first removes the record: as another
    // instance collecting the run between the answer's read and its write would.
    const { world, c, pane } = await open("/bin/bash", {}, (world, env) => {
      const wrapper = join(world.dir, "collecting-tmux")
      writeFileSync(
        wrapper,
        [
          "#!/bin/sh",
          `case "$*" in *'#{?@lmcp_run_'*)`,
          `  id=$(printf '%s' "$*" | grep -o '@lmcp_run_[0-9a-f]\\{6\\}' | head -1)`,
          `  pane=$(printf '%s' "$*" | grep -o -- '-t %[0-9]*' | head -1 | cut -c4-)`,
          `  tmux -S '${world.socketPath("libtmux-mcp")}' set-option -pu -t "$pane" "$id";;`,
          "esac",
          `exec tmux "$@"`,
          ""
        ].join("\n")
      )
      // The wrapper acts before a forked client's list; the control connection's would pass it by.
      chmodSync(wrapper, 0o755)
      ;(env as Record<string, string>).LIBTMUX_TMUX_BIN = wrapper
      ;(env as Record<string, string>).LIBTMUX_TRANSPORT = "spawn"
    })
    const timed = await run(c, pane, "echo one; sleep 60", { timeout: 4 })
    assert.deepInclude(timed, { timed_out: true, output: "one" })
    const options = world.tmux("libtmux-mcp", "show", "-p", "-t", pane)
    assert.notInclude(options, "@lmcp_run_", options)
  })
})
