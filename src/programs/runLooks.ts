/**
 * What the run's waits see of a pane (runWatch.ts) and what the keyboard rule reads from it
 * (keyboardHolder.ts): the probes and the looks both share, kept apart so neither imports the other.
 */
import type * as Effect from "effect/Effect"
import type { TerminalMode } from "../domain/keyboard.ts"
import type { FrontProcess, ShellProcess } from "../services/PaneProcess.ts"

/** The tmux-side state readiness needs. @category models */
export interface PaneLook {
  readonly pane_pid: number
  readonly cursor_x: number
  readonly pane_dead: boolean
  readonly pane_in_mode: boolean
  readonly alternate_on: boolean
  readonly pane_current_command: string
  /** The pane's terminal: what tells its process in /proc. */
  readonly pane_tty: string
}

/** Looks at the pane's processes through the kernel; no tmux invocation. @category models */
export interface KernelProbe {
  /** With the pane's terminal, also checks that /proc shows the pane's process (`unseen` otherwise). */
  shell(panePid: number, tty?: string): Effect.Effect<ShellProcess | undefined>
  /** The process of the foreground group closest to holding the terminal `tty` (domain/keyboard.ts). */
  front(panePid: number, group: number, tty: string): Effect.Effect<FrontProcess | undefined>
  /** The terminal's mode: read only once a holder is suspected. */
  mode(tty: string): Effect.Effect<TerminalMode | undefined>
}

/** What one tmux look at a running run sees; `rows` (the visible screen) only when asked for. @category models */
export interface RunScreen {
  readonly recorded: boolean
  /** `false` while the run's paste has not come (its typed record is not set yet): a slow typing client. */
  readonly typed?: boolean
  readonly dead: boolean
  /** The pane's process now: another than the run's when the pane was respawned. */
  readonly panePid?: number
  readonly alternate: boolean
  readonly program: string
  readonly cursorX: number
  readonly cursorY: number
  readonly rows?: ReadonlyArray<string>
}
