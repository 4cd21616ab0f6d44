/**
 * Shells in tests: panes running a chosen shell (a tmux configuration that sets `default-shell`, as
 * create_session takes no shell, and a HOME with empty startup files so no first-run wizard appears),
 * which shells and programs a test may skip for, and the words a shell parses from a line.
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TmuxWorld } from "./tmux.ts"

/**
 * Writes the tmux configuration that makes new panes run `shell`: read when a tmux server starts.
 * The panes get an XDG_RUNTIME_DIR of their own (`runtime`): without one fish makes
 * `/tmp/fish.<user>` whatever TMPDIR says, and the test run would leave it behind.
 */
const writeShellConfig = (config: string, shell: string, runtime: string): void =>
  writeFileSync(
    config,
    [
      "set -s exit-empty on",
      "set -g history-limit 50000",
      `set -g default-shell '${shell}'`,
      `set-environment -g XDG_RUNTIME_DIR '${runtime}'`,
      ""
    ].join("\n")
  )

/** The environment for a server whose new panes run `shell`. */
export const shellEnv = (world: TmuxWorld, shell: string): Record<string, string> => {
  const config = join(world.dir, `tmux-${shell.replaceAll("/", "_")}.conf`)
  // Owner-only, as fish requires of a runtime folder; in the world, so its disposal removes it.
  const runtime = join(world.dir, "runtime")
  mkdirSync(runtime, { recursive: true, mode: 0o700 })
  writeShellConfig(config, shell, runtime)
  for (const file of [".zshrc", ".bashrc", ".profile"]) writeFileSync(join(world.dir, file), "")
  return {
    LIBTMUX_TMUX_CONFIG: config,
    HOME: world.dir,
    SHELL: shell,
    LIBTMUX_TOOLSETS: "inspect,manage,execute,teardown"
  }
}

/**
 * Whether a test that needs `paths` (shells, programs) is skipped here: one is not installed and
 * this is not CI. CI has every one (.ci/run installs what Debian does not ship), so there a missing
 * one fails the test instead.
 */
export const missingHere = (...paths: ReadonlyArray<string>): boolean =>
  process.env.CI !== "true" && paths.some((path) => !existsSync(path))

/** The shells whose parsing of a quoted line the tests compare: those installed here, all of them in CI. */
export const quotingShells = (): Array<string> =>
  ["/bin/sh", "/bin/bash", "/bin/dash", "/usr/bin/zsh", "/usr/bin/fish"].filter((shell) => !missingHere(shell))

/**
 * The words `shell -c` makes of `text` (printf ends each with a NUL), read by a shell that starts
 * with none of the user's files: a HOME of its own (zsh and fish read theirs even for -c) and no
 * stdin (bash reads ~/.bashrc when its stdin is a socket, as a Node pipe is).
 */
export const wordsIn = (shell: string, text: string): Array<string> => {
  const home = mkdtempSync(join(tmpdir(), "libtmux-mcp-shell-"))
  try {
    return execFileSync(shell, ["-c", `printf '%s\\0' ${text}`], {
      encoding: "utf8",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
      stdio: ["ignore", "pipe", "pipe"]
    }).split("\0").slice(0, -1)
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}
