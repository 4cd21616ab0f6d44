/**
 * Manifest rows of the execute toolset: tools that start pane processes or drive them.
 * The product lives here; every row says exactly which kind of reach it has.
 */
import type { ManifestRow } from "./row.ts"

const base = {
  toolset: "execute",
  effect: ["change"],
  output: ["tmux-metadata"],
  mayExposeSecrets: false,
  mayReturnUntrustedContent: true,
  selfBounded: false,
  batchEligible: false,
  callsTools: false,
  audience: "model",
  amplifiesFutureInput: false,
  mayTriggerConfiguredHooks: true
} as const
// Additive creation with every format and execution sink literalized or passed another way.
const spawn = {
  ...base,
  reach: "configured-process",
  opener: "spawn",
  hints: { readOnly: false, destructive: false, idempotent: false, openWorld: true }
} as const
const input = {
  ...base,
  reach: "pane-input",
  opener: "pane-input",
  hints: { readOnly: false, destructive: true, idempotent: false, openWorld: true }
} as const

export const executeRows = {
  create_session: {
    ...spawn,
    name: "create_session",
    title: "Create session",
    sinks: {
      session_name: "tmux-state-value",
      window_name: "tmux-state-value",
      start_directory: "tmux-state-value",
      width: "tmux-state-value",
      height: "tmux-state-value"
    }
  },
  create_window: {
    ...spawn,
    name: "create_window",
    title: "Create window",
    sinks: {
      session_id: "tmux-lookup",
      session_name: "tmux-lookup",
      window_name: "tmux-state-value",
      start_directory: "tmux-state-value",
      select: "none"
    }
  },
  split_window: {
    ...spawn,
    name: "split_window",
    title: "Split window",
    sinks: {
      pane_id: "tmux-lookup",
      direction: "none",
      size_percent: "tmux-state-value",
      size_cells: "tmux-state-value",
      start_directory: "tmux-state-value",
      select: "none"
    }
  },
  respawn_pane: {
    ...base,
    name: "respawn_pane",
    title: "Respawn pane",
    effect: ["change", "delete"],
    reach: "pane-command",
    opener: "pane-command",
    hints: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
    sinks: { pane_id: "tmux-lookup", command: "shell-command", kill: "none", start_directory: "tmux-state-value" }
  },
  run_shell_command: {
    ...base,
    name: "run_shell_command",
    title: "Run shell command",
    reach: "pane-command",
    output: ["terminal-content"],
    mayExposeSecrets: true,
    opener: "pane-command",
    selfBounded: true,
    hints: { readOnly: false, destructive: true, idempotent: false, openWorld: true },
    sinks: {
      pane_id: "tmux-lookup",
      command: "shell-command",
      resume: "tmux-lookup",
      timeout: "none",
      max_lines: "none",
      max_bytes: "none",
      suppress_history: "none",
      in_shell: "none",
      whole_output: "none",
      answer: "pane-input",
      answer_key: "pane-input",
      enter: "none",
      interrupt: "none"
    }
  },
  send_keys: {
    ...input,
    name: "send_keys",
    title: "Send keys",
    sinks: { pane_id: "tmux-lookup", keys: "pane-input", literal: "none", enter: "none" }
  },
  send_keys_batch: {
    ...input,
    name: "send_keys_batch",
    title: "Send keys in order",
    sinks: { operations: "pane-input" }
  },
  paste_text: {
    ...input,
    name: "paste_text",
    title: "Paste text",
    sinks: { pane_id: "tmux-lookup", text: "pane-input", bracketed: "none" }
  },
  // An ordinary window option, placed here because it widens what later input reaches.
  set_synchronize_panes: {
    ...base,
    name: "set_synchronize_panes",
    title: "Set synchronize panes",
    reach: "none",
    opener: "manage",
    amplifiesFutureInput: true,
    hints: { readOnly: false, destructive: true, idempotent: true, openWorld: true },
    sinks: {
      window_id: "tmux-lookup",
      session_id: "tmux-lookup",
      session_name: "tmux-lookup",
      window_index: "tmux-lookup",
      enabled: "tmux-state-value"
    }
  }
} as const satisfies Record<string, ManifestRow>
