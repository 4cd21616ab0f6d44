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
  amplifiesFutureInput: false,
  mayTriggerConfiguredHooks: true,
  sinks: null
} as const
const repeatable = { readOnly: false, destructive: true, idempotent: true, openWorld: false } as const
const once = { readOnly: false, destructive: true, idempotent: false, openWorld: false } as const

export const manageRows = {
  rename_session: { ...change, name: "rename_session", title: "Rename session", hints: repeatable },
  rename_window: { ...change, name: "rename_window", title: "Rename window", hints: repeatable },
  // next/previous move on every call.
  select_window: { ...change, name: "select_window", title: "Select window", hints: once },
  select_pane: { ...change, name: "select_pane", title: "Select pane", hints: once },
  select_layout: { ...change, name: "select_layout", title: "Select layout", hints: repeatable },
  resize_window: { ...change, name: "resize_window", title: "Resize window", hints: repeatable },
  resize_pane: { ...change, name: "resize_pane", title: "Resize pane", hints: repeatable },
  // Without a destination it moves again on every call.
  move_window: { ...change, name: "move_window", title: "Move window", hints: once },
  // Swapping twice swaps back.
  swap_pane: { ...change, name: "swap_pane", title: "Swap panes", hints: once },
  set_pane_title: { ...change, name: "set_pane_title", title: "Set pane title", hints: repeatable },
  enter_copy_mode: { ...change, name: "enter_copy_mode", title: "Enter copy mode", hints: repeatable },
  exit_copy_mode: { ...change, name: "exit_copy_mode", title: "Exit copy mode", hints: repeatable },
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
  set_mouse_enabled: { ...change, name: "set_mouse_enabled", title: "Set mouse enabled", hints: repeatable },
  set_history_limit: { ...change, name: "set_history_limit", title: "Set history limit", hints: repeatable }
} as const satisfies Record<string, ManifestRow>
