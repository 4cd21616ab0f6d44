/**
 * Manifest rows of the teardown toolset: deletion of tmux objects or retained scrollback,
 * irreversible at the tmux level.
 */
import type { ManifestRow } from "./row.ts"

const remove = {
  toolset: "teardown",
  effect: ["delete"],
  reach: "none",
  output: ["tmux-metadata"],
  mayExposeSecrets: false,
  mayReturnUntrustedContent: false,
  hints: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  opener: "teardown",
  selfBounded: false,
  batchEligible: false,
  callsTools: false,
  audience: "model",
  amplifiesFutureInput: false,
  mayTriggerConfiguredHooks: true
} as const

export const teardownRows = {
  clear_pane_scrollback: {
    ...remove,
    name: "clear_pane_scrollback",
    title: "Clear pane scrollback",
    sinks: { pane_id: "tmux-lookup" }
  },
  kill_pane: { ...remove, name: "kill_pane", title: "Kill pane", sinks: { pane_id: "tmux-lookup" } },
  kill_window: { ...remove, name: "kill_window", title: "Kill window", sinks: { window_id: "tmux-lookup" } },
  kill_session: {
    ...remove,
    name: "kill_session",
    title: "Kill session",
    sinks: { session_id: "tmux-lookup", session_name: "tmux-lookup" }
  }
} as const satisfies Record<string, ManifestRow>
