/**
 * Manifest rows of the manage toolset: typed changes to tmux structure and presentation.
 * Reach none and no executable input; every row is destructive because none is purely additive.
 */
import type { ManifestRow } from "./row.ts"

const change = {
  toolset: "manage",
  effect: ["change"],
  reach: "none",
  output: ["tmux-metadata"],
  mayExposeSecrets: false,
  mayReturnUntrustedContent: true,
  opener: "manage",
  selfBounded: false,
  batchEligible: false,
  callsTools: false,
  audience: "model",
  amplifiesFutureInput: false,
  mayTriggerConfiguredHooks: true
} as const
const repeatable = { readOnly: false, destructive: true, idempotent: true, openWorld: false } as const
const once = { readOnly: false, destructive: true, idempotent: false, openWorld: false } as const

export const manageRows = {
  rename_session: {
    ...change,
    name: "rename_session",
    title: "Rename session",
    hints: repeatable,
    sinks: { session_id: "tmux-lookup", session_name: "tmux-lookup", new_name: "tmux-state-value" }
  },
  rename_window: {
    ...change,
    name: "rename_window",
    title: "Rename window",
    hints: repeatable,
    sinks: {
      window_id: "tmux-lookup",
      session_id: "tmux-lookup",
      session_name: "tmux-lookup",
      window_index: "tmux-lookup",
      new_name: "tmux-state-value"
    }
  },
  // next/previous move on every call.
  select_window: {
    ...change,
    name: "select_window",
    title: "Select window",
    hints: once,
    sinks: {
      window_id: "tmux-lookup",
      session_id: "tmux-lookup",
      session_name: "tmux-lookup",
      window_index: "tmux-lookup",
      direction: "none"
    }
  },
  select_pane: {
    ...change,
    name: "select_pane",
    title: "Select pane",
    hints: once,
    sinks: { pane_id: "tmux-lookup", direction: "none" }
  },
  select_layout: {
    ...change,
    name: "select_layout",
    title: "Select layout",
    hints: repeatable,
    sinks: {
      window_id: "tmux-lookup",
      session_id: "tmux-lookup",
      session_name: "tmux-lookup",
      window_index: "tmux-lookup",
      layout: "none"
    }
  },
  resize_window: {
    ...change,
    name: "resize_window",
    title: "Resize window",
    hints: repeatable,
    sinks: {
      window_id: "tmux-lookup",
      session_id: "tmux-lookup",
      session_name: "tmux-lookup",
      window_index: "tmux-lookup",
      width: "tmux-state-value",
      height: "tmux-state-value"
    }
  },
  resize_pane: {
    ...change,
    name: "resize_pane",
    title: "Resize pane",
    hints: repeatable,
    sinks: { pane_id: "tmux-lookup", width: "tmux-state-value", height: "tmux-state-value", zoom: "none" }
  },
  // Without a destination it moves again on every call.
  move_window: {
    ...change,
    name: "move_window",
    title: "Move window",
    hints: once,
    sinks: {
      window_id: "tmux-lookup",
      to_session_id: "tmux-lookup",
      to_session_name: "tmux-lookup",
      to_index: "tmux-state-value"
    }
  },
  // Swapping twice swaps back.
  swap_pane: {
    ...change,
    name: "swap_pane",
    title: "Swap panes",
    hints: once,
    sinks: { source_pane_id: "tmux-lookup", target_pane_id: "tmux-lookup" }
  },
  set_pane_title: {
    ...change,
    name: "set_pane_title",
    title: "Set pane title",
    hints: repeatable,
    sinks: { pane_id: "tmux-lookup", title: "tmux-state-value" }
  },
  enter_copy_mode: {
    ...change,
    name: "enter_copy_mode",
    title: "Enter copy mode",
    hints: repeatable,
    sinks: { pane_id: "tmux-lookup", scroll_up: "none" }
  },
  exit_copy_mode: {
    ...change,
    name: "exit_copy_mode",
    title: "Exit copy mode",
    hints: repeatable,
    sinks: { pane_id: "tmux-lookup" }
  },
  // Waiting consumes a latched signal.
  wait_for_channel: {
    ...change,
    name: "wait_for_channel",
    title: "Wait for channel",
    hints: once,
    selfBounded: true,
    mayTriggerConfiguredHooks: false,
    sinks: { channel: "tmux-state-value", timeout: "none" }
  },
  // An unwaited signal latches; a second one is a different state change.
  signal_channel: {
    ...change,
    name: "signal_channel",
    title: "Signal channel",
    hints: once,
    mayTriggerConfiguredHooks: false,
    sinks: { channel: "tmux-state-value" }
  },
  set_mouse_enabled: {
    ...change,
    name: "set_mouse_enabled",
    title: "Set mouse enabled",
    hints: repeatable,
    sinks: { session_id: "tmux-lookup", session_name: "tmux-lookup", global: "none", enabled: "tmux-state-value" }
  },
  set_history_limit: {
    ...change,
    name: "set_history_limit",
    title: "Set history limit",
    hints: repeatable,
    sinks: { session_id: "tmux-lookup", session_name: "tmux-lookup", global: "none", lines: "tmux-state-value" }
  }
} as const satisfies Record<string, ManifestRow>
