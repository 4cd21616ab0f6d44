/**
 * The tool registry: every tool of the manifest, keyed by name. Its type refuses a key that is not a
 * manifest name, a definition whose row differs from the key's row, and a missing tool.
 */
import type { RowOf, ToolName } from "../manifest/index.ts"
import type { ToolDefinition } from "./define.ts"
import { create_session } from "./execute/create_session.ts"
import { create_window } from "./execute/create_window.ts"
import { paste_text } from "./execute/paste_text.ts"
import { respawn_pane } from "./execute/respawn_pane.ts"
import { run_shell_command } from "./execute/run_shell_command.ts"
import { send_keys } from "./execute/send_keys.ts"
import { send_keys_batch } from "./execute/send_keys_batch.ts"
import { set_synchronize_panes } from "./execute/set_synchronize_panes.ts"
import { split_window } from "./execute/split_window.ts"
import { call_read_tools_batch } from "./inspect/call_read_tools_batch.ts"
import { capture_pane } from "./inspect/capture_pane.ts"
import { capture_since } from "./inspect/capture_since.ts"
import { find_pane_by_position } from "./inspect/find_pane_by_position.ts"
import { get_pane_info } from "./inspect/get_pane_info.ts"
import { get_server_info } from "./inspect/get_server_info.ts"
import { get_session_info } from "./inspect/get_session_info.ts"
import { get_tmux_variables } from "./inspect/get_tmux_variables.ts"
import { get_window_info } from "./inspect/get_window_info.ts"
import { list_panes } from "./inspect/list_panes.ts"
import { list_sessions } from "./inspect/list_sessions.ts"
import { list_windows } from "./inspect/list_windows.ts"
import { search_panes } from "./inspect/search_panes.ts"
import { show_environment } from "./inspect/show_environment.ts"
import { show_hooks } from "./inspect/show_hooks.ts"
import { show_option } from "./inspect/show_option.ts"
import { snapshot_pane } from "./inspect/snapshot_pane.ts"
import { view_pane } from "./inspect/view_pane.ts"
import { wait_for_text } from "./inspect/wait_for_text.ts"
import { enter_copy_mode } from "./manage/enter_copy_mode.ts"
import { exit_copy_mode } from "./manage/exit_copy_mode.ts"
import { move_window } from "./manage/move_window.ts"
import { rename_session } from "./manage/rename_session.ts"
import { rename_window } from "./manage/rename_window.ts"
import { resize_pane } from "./manage/resize_pane.ts"
import { resize_window } from "./manage/resize_window.ts"
import { select_layout } from "./manage/select_layout.ts"
import { select_pane } from "./manage/select_pane.ts"
import { select_window } from "./manage/select_window.ts"
import { set_history_limit } from "./manage/set_history_limit.ts"
import { set_mouse_enabled } from "./manage/set_mouse_enabled.ts"
import { set_pane_title } from "./manage/set_pane_title.ts"
import { signal_channel } from "./manage/signal_channel.ts"
import { swap_pane } from "./manage/swap_pane.ts"
import { wait_for_channel } from "./manage/wait_for_channel.ts"
import { clear_pane_scrollback } from "./teardown/clear_pane_scrollback.ts"
import { kill_pane } from "./teardown/kill_pane.ts"
import { kill_session } from "./teardown/kill_session.ts"
import { kill_window } from "./teardown/kill_window.ts"

/** The registry's shape: exactly one definition per manifest name, tied to that name's row. @category models */
export type RegistryShape = { readonly [K in ToolName]: ToolDefinition<RowOf<K>> }

/** Checks a registry record against the manifest at compile time. @category constructors */
export const defineRegistry = <const T extends RegistryShape>(
  tools: T & { readonly [K in Exclude<keyof T, ToolName>]: never }
): T => tools

/** Every tool, in the manifest's order. @category tools */
export const registry = defineRegistry({
  list_sessions,
  list_windows,
  list_panes,
  get_server_info,
  get_session_info,
  get_window_info,
  get_pane_info,
  capture_pane,
  capture_since,
  snapshot_pane,
  view_pane,
  search_panes,
  find_pane_by_position,
  wait_for_text,
  get_tmux_variables,
  show_option,
  show_environment,
  show_hooks,
  call_read_tools_batch,
  rename_session,
  rename_window,
  select_window,
  select_pane,
  select_layout,
  resize_window,
  resize_pane,
  move_window,
  swap_pane,
  set_pane_title,
  enter_copy_mode,
  exit_copy_mode,
  wait_for_channel,
  signal_channel,
  set_mouse_enabled,
  set_history_limit,
  create_session,
  create_window,
  split_window,
  respawn_pane,
  run_shell_command,
  send_keys,
  send_keys_batch,
  paste_text,
  set_synchronize_panes,
  clear_pane_scrollback,
  kill_pane,
  kill_window,
  kill_session
})

/** The definition of a tool. */
export const definitionOf = (name: ToolName): ToolDefinition => registry[name]

/** The names this build registers: all of the manifest. */
export const registeredNames: ReadonlySet<ToolName> = new Set(Object.keys(registry) as Array<ToolName>)
