/**
 * Manifest rows of the inspect toolset: reads of tmux state and terminal output.
 * Every row here is readOnly, reach none, and carries no executable or format-bearing sink.
 */
import type { ManifestRow } from "./row.ts"

const read = { readOnly: true, destructive: false, idempotent: true, openWorld: false } as const
const readOpenWorld = { readOnly: true, destructive: false, idempotent: true, openWorld: true } as const
const common = {
  toolset: "inspect",
  effect: ["observe"],
  reach: "none",
  audience: "model",
  amplifiesFutureInput: false,
  mayTriggerConfiguredHooks: true
} as const
// Hierarchy reads return names and titles that programs in panes can set.
const metadata = {
  ...common,
  output: ["tmux-metadata"],
  mayExposeSecrets: false,
  mayReturnUntrustedContent: true,
  hints: read,
  opener: "inspect-metadata",
  selfBounded: false,
  batchEligible: true,
  callsTools: false
} as const
const paneOutput = {
  ...common,
  output: ["terminal-content"],
  mayExposeSecrets: true,
  mayReturnUntrustedContent: true,
  hints: readOpenWorld,
  opener: "inspect-pane-output",
  selfBounded: false,
  batchEligible: true,
  callsTools: false
} as const

export const inspectRows = {
  list_sessions: { ...metadata, name: "list_sessions", title: "List sessions", sinks: {} },
  list_windows: {
    ...metadata,
    name: "list_windows",
    title: "List windows",
    sinks: { session_id: "tmux-lookup", session_name: "tmux-lookup" }
  },
  list_panes: {
    ...metadata,
    name: "list_panes",
    title: "List panes",
    sinks: { session_id: "tmux-lookup", session_name: "tmux-lookup", window_id: "tmux-lookup" }
  },
  get_server_info: { ...metadata, name: "get_server_info", title: "Get server info", sinks: {} },
  get_session_info: {
    ...metadata,
    name: "get_session_info",
    title: "Get session info",
    sinks: { session_id: "tmux-lookup", session_name: "tmux-lookup" }
  },
  get_window_info: {
    ...metadata,
    name: "get_window_info",
    title: "Get window info",
    sinks: {
      window_id: "tmux-lookup",
      session_id: "tmux-lookup",
      session_name: "tmux-lookup",
      window_index: "tmux-lookup"
    }
  },
  get_pane_info: { ...metadata, name: "get_pane_info", title: "Get pane info", sinks: { pane_id: "tmux-lookup" } },
  capture_pane: {
    ...paneOutput,
    name: "capture_pane",
    title: "Capture pane",
    sinks: {
      pane_id: "tmux-lookup",
      start: "none",
      end: "none",
      escapes: "none",
      join_wrapped: "none",
      max_lines: "none",
      max_bytes: "none"
    }
  },
  capture_since: {
    ...paneOutput,
    name: "capture_since",
    title: "Capture pane output since a cursor",
    sinks: { pane_id: "tmux-lookup", cursor: "none", max_lines: "none", max_bytes: "none" }
  },
  snapshot_pane: {
    ...paneOutput,
    name: "snapshot_pane",
    title: "Snapshot pane",
    output: ["terminal-content", "tmux-metadata"],
    sinks: { pane_id: "tmux-lookup", max_lines: "none", max_bytes: "none" }
  },
  // The pane view's own poll (an MCP App): listed only to clients that declare the UI extension.
  view_pane: {
    ...paneOutput,
    name: "view_pane",
    title: "View pane",
    audience: "app",
    output: ["terminal-content", "tmux-metadata"],
    batchEligible: false,
    sinks: { pane_id: "tmux-lookup", since: "none" }
  },
  search_panes: {
    ...paneOutput,
    name: "search_panes",
    title: "Search panes",
    output: ["terminal-content", "tmux-metadata"],
    sinks: {
      pattern: "regex",
      regex: "none",
      match_case: "none",
      session_id: "tmux-lookup",
      session_name: "tmux-lookup",
      history_lines: "none",
      max_panes: "none",
      max_lines_per_pane: "none"
    }
  },
  find_pane_by_position: {
    ...metadata,
    name: "find_pane_by_position",
    title: "Find pane by position",
    sinks: {
      window_id: "tmux-lookup",
      session_id: "tmux-lookup",
      session_name: "tmux-lookup",
      window_index: "tmux-lookup",
      position: "none"
    }
  },
  wait_for_text: {
    ...paneOutput,
    name: "wait_for_text",
    title: "Wait for text",
    selfBounded: true,
    batchEligible: false,
    sinks: {
      pane_id: "tmux-lookup",
      patterns: "regex",
      regex: "none",
      match_case: "none",
      since: "none",
      timeout: "none"
    }
  },
  get_tmux_variables: {
    ...metadata,
    name: "get_tmux_variables",
    title: "Get tmux variables",
    output: ["tmux-metadata", "configured-command"],
    mayExposeSecrets: true,
    opener: "inspect-configuration",
    sinks: { pane_id: "tmux-lookup", names: "tmux-lookup" }
  },
  show_option: {
    ...metadata,
    name: "show_option",
    title: "Show option",
    output: ["tmux-metadata", "configured-command"],
    mayExposeSecrets: true,
    opener: "inspect-configuration",
    sinks: {
      scope: "none",
      name: "tmux-lookup",
      global: "none",
      session_id: "tmux-lookup",
      session_name: "tmux-lookup",
      window_id: "tmux-lookup",
      pane_id: "tmux-lookup"
    }
  },
  show_environment: {
    ...metadata,
    name: "show_environment",
    title: "Show environment",
    output: ["process-environment"],
    mayExposeSecrets: true,
    opener: "inspect-environment",
    // Environment values are secrets more often than not: the batch must not launder them.
    batchEligible: false,
    sinks: { session_id: "tmux-lookup", session_name: "tmux-lookup", name: "tmux-lookup" }
  },
  show_hooks: {
    ...metadata,
    name: "show_hooks",
    title: "Show hooks",
    output: ["configured-command"],
    mayExposeSecrets: true,
    opener: "inspect-configuration",
    sinks: { name: "tmux-lookup", session_id: "tmux-lookup", session_name: "tmux-lookup" }
  },
  call_read_tools_batch: {
    ...paneOutput,
    name: "call_read_tools_batch",
    title: "Call read tools in a batch",
    output: ["tmux-metadata", "terminal-content", "configured-command"],
    batchEligible: false,
    callsTools: true,
    sinks: { operations: "tmux-lookup", onError: "none" }
  }
} as const satisfies Record<string, ManifestRow>
