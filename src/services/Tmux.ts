/**
 * The tmux authority services. tmux access is split by authority, and each service accepts
 * only its own closed set of tmux commands, so a tool's requirements say what it can do:
 * the registry's types refuse an inspect tool that requires `PaneInput`, or a manage tool that
 * requires `TmuxDelete`. A raw "run this argv" exists only inside the live layer.
 *
 * Every invocation is an argv (never a shell string), pinned to the socket resolved at startup.
 * The typed reads of sessions, windows and panes are part of the contract (TmuxReads.ts): programs
 * and tools read rows, not `-F` formats.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type { TmuxError } from "./errors.ts"

/** One tmux command: its name from a closed set, then its arguments. @category models */
export type TmuxCommand<Name extends string> = readonly [Name, ...ReadonlyArray<string>]

/** Options of one invocation. @category models */
export interface InvocationOptions {
  /** Working directory of the tmux client process (how a start directory reaches tmux without `-c`). */
  readonly cwd?: string
  /** Text for the tmux client's standard input (`load-buffer -`). */
  readonly input?: string
  /** How long the invocation may take, in milliseconds (default 10 s). */
  readonly timeoutMs?: number
  /** How many bytes of output to read at most; more stops the client with `TmuxOutputTooLarge`. */
  readonly maxOutputBytes?: number
}

/** The shape shared by every authority service: several commands may share one invocation. */
export interface Authority<Name extends string> {
  readonly commands: ReadonlyArray<Name>
  run(commands: ReadonlyArray<TmuxCommand<Name>>, options?: InvocationOptions): Effect.Effect<string, TmuxError>
}

/** Commands that only read tmux state. */
export const observeCommands = [
  "list-sessions",
  "list-windows",
  "list-panes",
  "display-message",
  "has-session",
  "capture-pane",
  "show-options",
  "show-environment",
  "show-hooks"
] as const
/** Commands that change structure or presentation without deleting or spawning. */
export const changeCommands = [
  "rename-session",
  "rename-window",
  "select-window",
  "next-window",
  "previous-window",
  "last-window",
  "select-pane",
  "select-layout",
  "resize-window",
  "resize-pane",
  "move-window",
  "swap-pane",
  "copy-mode",
  "set-option",
  "wait-for",
  // Only as `send-keys -X`: a copy-mode command, which never reaches the pane's program.
  "send-keys",
  // Reads, so that a change and the state it left come back in one invocation.
  "display-message",
  "list-panes",
  "list-sessions"
] as const
/** Commands that start a pane's configured process. */
export const spawnCommands = ["new-session", "new-window", "split-window"] as const
/** Commands that delete tmux objects or retained history. */
export const deleteCommands = ["kill-session", "kill-window", "kill-pane", "clear-history", "display-message"] as const
/** Commands that deliver client input to a pane's program (and read back where it went). */
export const inputCommands = [
  "send-keys",
  "load-buffer",
  "paste-buffer",
  "delete-buffer",
  "display-message",
  "list-panes"
] as const
/**
 * Commands that run an authored command in a pane, or replace the pane's process, with what the
 * completion protocol needs in the same invocation: its per-run options, the paste that types it,
 * its channel, the reads.
 */
export const commandCommands = [
  "send-keys",
  "load-buffer",
  "paste-buffer",
  "delete-buffer",
  "wait-for",
  "respawn-pane",
  "set-option",
  "display-message",
  "capture-pane",
  "list-panes"
] as const

/**
 * The name prefix of this server's temporary paste buffers (paste_text's and run_shell_command's).
 * The live layer deletes buffers with it that an interrupted paste left, when its scope closes.
 */
export const pasteBufferPrefix = "libtmux-mcp-paste-"

/** Read-only tmux access. @category services */
export class TmuxObserve extends Context.Service<TmuxObserve, Authority<typeof observeCommands[number]>>()(
  "libtmux-mcp/services/TmuxObserve"
) {}

/** Structure and presentation changes. @category services */
export class TmuxChange extends Context.Service<TmuxChange, Authority<typeof changeCommands[number]>>()(
  "libtmux-mcp/services/TmuxChange"
) {}

/** Spawning, plus the one spawn that may start the tmux server. @category models */
export interface SpawnAuthority extends Authority<typeof spawnCommands[number]> {
  /**
   * Runs commands that may start the tmux server, holding the socket's creation lock across every
   * libtmux-mcp instance, so that exactly one starts it and each knows whether it was the one.
   */
  create(
    commands: ReadonlyArray<TmuxCommand<typeof spawnCommands[number]>>,
    options?: InvocationOptions
  ): Effect.Effect<{ readonly stdout: string; readonly startedServer: boolean; readonly provenance: string }, TmuxError>
}

/** Starting a pane's configured process (sessions, windows, panes). @category services */
export class TmuxSpawn extends Context.Service<TmuxSpawn, SpawnAuthority>()("libtmux-mcp/services/TmuxSpawn") {}

/** Deleting tmux objects or scrollback. @category services */
export class TmuxDelete extends Context.Service<TmuxDelete, Authority<typeof deleteCommands[number]>>()(
  "libtmux-mcp/services/TmuxDelete"
) {}

/** Delivering client keys or text to a pane's program. @category services */
export class PaneInput extends Context.Service<PaneInput, Authority<typeof inputCommands[number]>>()(
  "libtmux-mcp/services/PaneInput"
) {}

/** Running an authored shell command in a pane. @category services */
export class PaneCommand extends Context.Service<PaneCommand, Authority<typeof commandCommands[number]>>()(
  "libtmux-mcp/services/PaneCommand"
) {}
