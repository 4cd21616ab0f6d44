/**
 * A valid call (or several) for every tool, naming the objects of a fresh tmux server: session $0
 * "work", window @0, panes %0 and %1. The ceiling test runs them against a fake; the sink test against tmux;
 * the first of each is the example on its tool's page, unless test/support/examples.ts sets a scene for it.
 */
import type { ToolName } from "../../src/manifest/index.ts"

/** Valid calls for every registered tool; a tool without one (or with an empty list) fails the completeness test. */
export const samples: Partial<Record<ToolName, ReadonlyArray<Record<string, unknown>>>> = {
  list_sessions: [{}],
  list_windows: [{}, { session_id: "$0" }, { session_name: "work" }],
  list_panes: [{}, { session_name: "work" }, { window_id: "@0" }],
  get_server_info: [{}],
  get_session_info: [{ session_id: "$0" }, { session_name: "work" }],
  get_window_info: [{ window_id: "@0" }, { session_name: "work", window_index: 0 }],
  get_pane_info: [{ pane_id: "%0" }],
  create_session: [{}, { session_name: "new", window_name: "w", width: 100, height: 30 }],
  create_window: [{ session_id: "$0" }, { session_name: "work", window_name: "w", select: true }],
  split_window: [{ pane_id: "%0" }, { pane_id: "%0", direction: "left", size_percent: 30 }],
  run_shell_command: [{ pane_id: "%0", command: "echo hi", timeout: 10 }],
  send_keys: [{ pane_id: "%0", keys: "C-c", enter: false }, { pane_id: "%0", keys: "ls", literal: true }],
  send_keys_batch: [{
    operations: [{ pane_id: "%0", keys: "a" }, { pane_id: "%0", keys: "Enter", literal: false, enter: false }]
  }],
  paste_text: [{ pane_id: "%0", text: "pasted" }],
  capture_pane: [{ pane_id: "%0" }, {
    pane_id: "%0",
    start: -10,
    end: 5,
    escapes: true,
    join_wrapped: true,
    max_lines: 3
  }],
  capture_since: [{ pane_id: "%0" }],
  snapshot_pane: [{ pane_id: "%0" }],
  view_pane: [{ pane_id: "%0" }],
  search_panes: [{ pattern: "hi" }, { pattern: "h.", regex: true, session_name: "work", history_lines: 10 }],
  find_pane_by_position: [{ window_id: "@0", position: "center" }],
  wait_for_text: [{ pane_id: "%0", timeout: 0.05 }],
  wait_for_channel: [{ channel: "c", timeout: 0.05 }],
  signal_channel: [{ channel: "c" }],
  get_tmux_variables: [{ pane_id: "%0", names: ["pane_current_path", "session_name"] }],
  show_option: [{ scope: "server", name: "exit-empty" }, { scope: "session", name: "status", session_name: "work" }, {
    scope: "pane",
    name: "@x",
    pane_id: "%0"
  }],
  show_environment: [{}, { session_id: "$0", name: "PATH" }],
  show_hooks: [{}, { session_name: "work", name: "after-new-window" }],
  call_read_tools_batch: [{
    operations: [{ tool: "list_sessions" }, { tool: "get_pane_info", arguments: { pane_id: "%0" } }],
    onError: "continue"
  }],
  rename_session: [{ session_id: "$0", new_name: "other" }],
  rename_window: [{ window_id: "@0", new_name: "w" }],
  select_window: [{ window_id: "@0" }, { session_name: "work", direction: "next" }, {
    session_name: "work",
    window_index: 0
  }],
  select_pane: [{ pane_id: "%0" }, { pane_id: "%0", direction: "up" }, { pane_id: "%0", direction: "next" }],
  select_layout: [{ window_id: "@0", layout: "tiled" }],
  resize_window: [{ window_id: "@0", width: 100 }],
  resize_pane: [{ pane_id: "%0", height: 10 }, { pane_id: "%0", zoom: true }],
  move_window: [{ window_id: "@0" }, { window_id: "@0", to_session_name: "work", to_index: 5 }],
  swap_pane: [{ source_pane_id: "%0", target_pane_id: "%1" }],
  set_pane_title: [{ pane_id: "%0", title: "t" }],
  enter_copy_mode: [{ pane_id: "%0", scroll_up: 3 }],
  exit_copy_mode: [{ pane_id: "%0" }],
  set_mouse_enabled: [{ global: true, enabled: true }, { session_id: "$0", enabled: false }],
  set_history_limit: [{ global: true, lines: 5000 }],
  respawn_pane: [{ pane_id: "%0" }, { pane_id: "%0", command: "top", kill: true }],
  set_synchronize_panes: [{ window_id: "@0", enabled: true }],
  clear_pane_scrollback: [{ pane_id: "%0" }],
  kill_pane: [{ pane_id: "%0" }],
  kill_window: [{ window_id: "@0" }],
  kill_session: [{ session_id: "$0" }, { session_name: "work" }]
}
