/**
 * What the kernel says about a pane's processes (on Linux, /proc): whether the pane's shell is
 * idle at its prompt reading its terminal, which program of the terminal's foreground is blocked
 * reading it, and what the shell's environment says. run_shell_command types nothing until the
 * shell itself is reading its terminal, and reports a run that waits for terminal input.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { TerminalMode, TtyWait } from "../domain/keyboard.ts"

/** The process of the terminal's foreground closest to holding the keyboard. @category models */
export interface FrontProcess {
  readonly pid: number
  /** Its command name. */
  readonly program: string
  /**
   * The file name of the program it runs (/proc/<pid>/exe), where this user may read it: what an
   * alternative's name stands for (Debian's `editor`, git's editor there, is vim or nano).
   */
  readonly executable?: string
  /** Whether it is a shell (a subshell's `read` builtin). */
  readonly programIsShell: boolean
  /** What it waits on (see domain/keyboard.ts). */
  readonly wait: TtyWait
  /** Its wait has a timeout: it wakes by itself. */
  readonly wakes: boolean
}

/** The pane's process as the kernel sees it. @category models */
export interface ShellProcess {
  /** The command name (`bash`, `zsh` …). */
  readonly comm: string
  /** Whether its process group is the terminal's foreground group (no job of it is running). */
  readonly inForeground: boolean
  /**
   * Whether it is asleep reading its terminal (stat `S`, wchan a terminal or poll wait), that is,
   * idle at a prompt. Where the kernel hides wchan, an asleep foreground shell counts.
   */
  readonly reading: boolean
  /** The command name of the terminal's foreground group leader, when that is not the shell. */
  readonly foreground: string
  /** The terminal's foreground process group. */
  readonly foregroundGroup: number
  /** How long ago the process started, in milliseconds. */
  readonly ageMs?: number
  /**
   * Where its last exec placed its arguments and environment (stat fields 48-51): another exec in
   * the same process, even of the same program, places them anew (address randomization) or sizes
   * them otherwise. Absent where the kernel hides them (zeros).
   */
  readonly image?: string
  /**
   * The file name of the program the process runs (`/proc/<pid>/exe`), when asked with the pane's
   * terminal and readable: a program named like a shell that is not one is told by it.
   */
  readonly program?: string
  /**
   * Whether that program's file is a shell of this system (platform/shellFiles.ts: /etc/shells, the
   * login shell, the pane's SHELL, or a shell's name on PATH, by the file's identity); absent when it
   * cannot be told.
   */
  readonly systemShell?: boolean
  /**
   * Set when what /proc shows under the pane's pid is not the pane's process (its controlling
   * terminal is not the pane's, or there is no such process here: tmux runs in another pid
   * namespace): why. Nothing else in the record then says anything about the pane.
   */
  readonly unseen?: string
}

/** Reads process state. @category services */
export class PaneProcess extends Context.Service<PaneProcess, {
  /**
   * The pane's process, or `undefined` when the platform offers no way to tell (or it is gone).
   * Given the pane's terminal (`#{pane_tty}`), it is also checked to be the pane's process, and
   * the program it runs is read.
   */
  shell(panePid: number, tty?: string): Effect.Effect<ShellProcess | undefined>
  /**
   * The process of the foreground group `group` (descendants of `panePid`, not that process) closest
   * to holding the terminal `tty`, with what it waits on; `undefined` when there is none to see.
   */
  front(panePid: number, group: number, tty: string): Effect.Effect<FrontProcess | undefined>
  /** The terminal's mode (a `tcgetattr`, as `stty -F` does), or `undefined` when it cannot be read. */
  terminalMode(tty: string): Effect.Effect<TerminalMode | undefined>
  /** A variable of the environment the process started with, or `undefined`. */
  environment(pid: number, name: string): Effect.Effect<string | undefined>
  /**
   * How the process `pid` named `comm` ended, while it is a zombie its parent has not reaped (the
   * kernel keeps its wait status, stat field 52): tmux 3.3a can mark a pane dead and not reap its
   * shell for seconds, with no `#{pane_dead_status}` meanwhile. `undefined` for a live or gone process.
   */
  exitOf(
    pid: number,
    comm: string
  ): Effect.Effect<{ readonly status: number | null; readonly signal: number | null } | undefined>
}>()("libtmux-mcp/services/PaneProcess") {}
