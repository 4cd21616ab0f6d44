/**
 * What a shell's own state cannot do to run_shell_command's protocol, each case as it was reported:
 * a function named by tmux's path, xtrace and verbose on, a pane's options forged to name another
 * pane's run, and a run collected while an answer reads it.
 */
import { execFileSync } from "node:child_process"
import { assert, describe, it } from "vitest"
import { call, textOf } from "../support/mcp.ts"
import { leftovers, run, runHarness } from "../support/runs.ts"

const { open } = runHarness("shellstate")
const tmuxBin = execFileSync("sh", ["-c", "command -v tmux"]).toString().trim()
const tag = (result: { readonly _meta?: Record<string, unknown> | undefined }) =>
  result._meta?.["com.git-pull.libtmux-mcp/error"]

describe("a shell function named by tmux's path", () => {
  for (
    const [shell, define] of [
      ["/bin/bash", `${tmuxBin}() { :; }`],
      ["/usr/bin/zsh", `${tmuxBin}() { : }`]
    ] as const
  ) {
    it(`does not run instead of the trailer's tmux in ${shell}: every run reports`, async () => {
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
    })
  }
})
