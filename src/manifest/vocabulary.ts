/**
 * The closed vocabulary of the capability model: toolsets, process reach, tmux effects,
 * output classes, input-sink kinds and the controlled opening sentences.
 *
 * Every other module speaks in these words; none may invent a capability term of its own.
 */

/** The four unordered toolsets. They shape the advertised inventory; they are not permissions. */
export const toolsets = ["inspect", "manage", "execute", "teardown"] as const
/** @category models */
export type Toolset = typeof toolsets[number]

/** Whether a tool can start a process or deliver client-controlled input to one. */
export const processReaches = ["none", "configured-process", "pane-input", "pane-command"] as const

/** What a tool's own tmux commands do to tmux state. */
export const tmuxEffects = ["observe", "change", "delete"] as const
/** @category models */
export type TmuxEffect = typeof tmuxEffects[number]

/** What a tool's result can carry back. Content classes, not severity. */
export const outputClasses = ["tmux-metadata", "terminal-content", "process-environment", "configured-command"] as const
/** @category models */
export type OutputClass = typeof outputClasses[number]

/**
 * Where a client parameter's value lands in the callee. CI asserts capability claims against
 * this column, never against parameter names: tmux expands formats in positions whose names
 * give no hint of it.
 */
export const sinkKinds = [
  "none",
  "tmux-lookup",
  "tmux-state-value",
  "pane-input",
  "shell-command",
  "process-argv",
  "regex",
  "tmux-format"
] as const
/** @category models */
export type SinkKind = typeof sinkKinds[number]

/** The controlled first sentence of every tool description, keyed by class. */
export const openers = {
  "inspect-metadata": "Inspect tmux metadata; accepts no client-supplied executable input.",
  "inspect-pane-output":
    "Read pane output; accepts no client-supplied executable input. Returned content may be sensitive or untrusted.",
  "inspect-environment":
    "Read the tmux environment; accepts no client-supplied executable input. Returned values may contain secrets.",
  "inspect-configuration": "Read configured tmux commands; accepts no client-supplied executable " +
    "input. Returned values may contain executable configuration.",
  "manage": "Change tmux state; no client-supplied executable input.",
  "spawn": "Start a pane's configured process; accepts no command payload.",
  "pane-input": "Send input to a pane's program; a shell that receives it runs it with your user's permissions.",
  "pane-command": "Run a shell command in a pane with your user's permissions.",
  "teardown": "Delete tmux state; accepts no command payload."
} as const

/** The mandatory extra description lines of the two setters that need them. */
export const mandatoryLines = {
  set_synchronize_panes:
    "While enabled, it duplicates subsequent input to every pane in the window, so one send_keys reaches all of them.",
  set_history_limit: "It applies to panes created after the change: existing panes keep their history and " +
    "their own limit, so lowering it discards nothing already kept."
} as const
