/**
 * What runs in the foreground of a pane's terminal, read from the operating system (on Linux,
 * /proc). Used to refuse typing a command into a pane whose shell is not at its prompt.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** The pane's own process and its terminal's foreground process group. @category models */
export interface Foreground {
  /** The command name of the pane's process (the shell), e.g. `bash`. */
  readonly shell: string
  /** Whether the pane's process itself is in the foreground (no job of it is running). */
  readonly shellInForeground: boolean
  /** The command name of the foreground process, when it is not the shell. */
  readonly foreground: string
}

/** Reads process state. @category services */
export class PaneProcess extends Context.Service<PaneProcess, {
  /** `undefined` when the platform offers no way to tell. */
  foreground(panePid: number): Effect.Effect<Foreground | undefined>
}>()("libtmux-mcp/services/PaneProcess") {}
