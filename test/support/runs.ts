/**
 * run_shell_command helpers shared by the control-loop tests: a pane running a chosen shell, a
 * run, a resume, and what a run may have left on the tmux server.
 */
import { chmodSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { errorMetaKey } from "../../src/wire/McpServer.ts"
import { harness } from "./harness.ts"
import { call, type Connected, structured, textOf } from "./mcp.ts"
import { shellEnv } from "./shells.ts"
import type { TmuxWorld } from "./tmux.ts"

/**
 * A harness whose `open` starts a server whose panes run `shell` (in the world's folder), and
 * creates one session. With `inProcess`, the servers are built in the test's process
 * (support/inProcess.ts).
 */
export const runHarness = (label: string, { inProcess = false }: { readonly inProcess?: boolean } = {}) => {
  const h = harness(label, { inProcess })
  // In the world's folder, as the built server's panes start (in its working folder): an
  // in-process server's would start in the test runner's.
  const session = async (c: Connected, world: TmuxWorld) =>
    structured(
      await call(c, "create_session", { session_name: "run", width: 80, height: 24, start_directory: world.dir })
    ).pane_id as string
  const open = async (
    shell = "/bin/bash",
    extra: Record<string, string> = {},
    prepare?: (world: TmuxWorld, env: Readonly<Record<string, string>>) => void
  ) => {
    const world = h.world()
    const env = { ...shellEnv(world, shell), ...extra }
    prepare?.(world, env)
    const c = await h.connect(world, env)
    return { world, c, pane: await session(c, world) }
  }
  return { ...h, open }
}

/**
 * A run that must succeed; its structured result. A call whose timeout ran out before its command
 * was typed (a short timeout on a loaded machine) typed nothing and says to call again: so does this.
 */
export const run = async (c: Connected, pane: string, command: string, extra: Record<string, unknown> = {}) => {
  for (let attempt = 1;; attempt++) {
    const result = await call(c, "run_shell_command", { pane_id: pane, command, ...extra })
    if (
      attempt < 10 && result._meta?.[errorMetaKey] === "PaneNotReady" && textOf(result).includes("nothing was typed")
    ) {
      continue
    }
    return structured(result)
  }
}

/** Waits again for a held run; its structured result. */
export const resume = async (c: Connected, pane: string, runId: string, timeout: number) =>
  structured(await call(c, "run_shell_command", { pane_id: pane, resume: runId, timeout }))

/** Server and pane options a run may have left behind. */
export const leftovers = (world: TmuxWorld, pane: string) =>
  [
    ...world.tmux("libtmux-mcp", "show", "-s").split("\n"),
    ...world.tmux("libtmux-mcp", "show", "-p", "-t", pane).split("\n")
  ]
    // The pane's typing generation (two options), what in-shell runs left in the shell and the mark
    // of its last collected run are kept on purpose: they outlive runs, not the pane.
    .filter((line) =>
      (line.includes("lmcp") && !/^@lmcp_(gen|g[0-9]+|sh|done[12]?) /u.test(line)) ||
      /^@(lx|x|[lm][0-9a-f]{6}) /u.test(line) ||
      line.startsWith("remain-on-exit")
    )

/**
 * Makes the server's tmux (in `env`) a wrapper under which a run's waiting client reads back
 * `readLate` seconds after the run's signal and every other read of a run's end record starts
 * `endLate` seconds late: a loaded machine's timings, made certain.
 */
export const lateReadsTmux = (
  world: TmuxWorld,
  env: Readonly<Record<string, string>>,
  { readLate, endLate }: { readonly readLate: number; readonly endLate: number }
) => {
  const wrapper = join(world.dir, "late-reads-tmux")
  writeFileSync(
    wrapper,
    [
      "#!/bin/sh",
      `case "$*" in *"wait-for lmcp_"*)`,
      "  n=$#; prev=",
      `  for a in "$@"; do set -- "$@" "$a"`,
      `    [ "$prev" = wait-for ] && [ "$a" != -S ] && set -- "$@" ";" run-shell "sleep ${readLate}"; prev=$a; done`,
      `  shift $n;;`,
      `*lmcp_end_*) sleep ${endLate};;`,
      "esac",
      `exec tmux "$@"`,
      ""
    ].join("\n")
  )
  chmodSync(wrapper, 0o755)
  // The delays act on forked clients only: reads over a control connection would not be late.
  Object.assign(env, { LIBTMUX_TMUX_BIN: wrapper, LIBTMUX_TRANSPORT: "spawn" })
}
