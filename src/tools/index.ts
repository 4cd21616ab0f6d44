/**
 * The tool registry: every tool this build has, keyed by manifest name. Its type refuses a key
 * that is not a manifest name and a definition whose row differs from the key's row. While the
 * inventory is being built the record is partial over the manifest.
 */
import type { RowOf, ToolName } from "../manifest/index.ts"
import type { ToolDefinition } from "./define.ts"
import { create_session } from "./execute/create_session.ts"
import { capture_pane } from "./inspect/capture_pane.ts"
import { capture_since } from "./inspect/capture_since.ts"
import { find_pane_by_position } from "./inspect/find_pane_by_position.ts"
import { search_panes } from "./inspect/search_panes.ts"
import { snapshot_pane } from "./inspect/snapshot_pane.ts"
import { wait_for_text } from "./inspect/wait_for_text.ts"
import { signal_channel } from "./manage/signal_channel.ts"
import { wait_for_channel } from "./manage/wait_for_channel.ts"
import { create_window } from "./execute/create_window.ts"
import { paste_text } from "./execute/paste_text.ts"
import { send_keys } from "./execute/send_keys.ts"
import { send_keys_batch } from "./execute/send_keys_batch.ts"
import { split_window } from "./execute/split_window.ts"
import { run_shell_command } from "./execute/run_shell_command.ts"
import { get_pane_info } from "./inspect/get_pane_info.ts"
import { get_server_info } from "./inspect/get_server_info.ts"
import { get_session_info } from "./inspect/get_session_info.ts"
import { get_window_info } from "./inspect/get_window_info.ts"
import { list_panes } from "./inspect/list_panes.ts"
import { list_sessions } from "./inspect/list_sessions.ts"
import { list_windows } from "./inspect/list_windows.ts"
import { kill_session } from "./teardown/kill_session.ts"

/** The registry's shape: at most one definition per manifest name, tied to that name's row. @category models */
export type RegistryShape = { readonly [K in ToolName]?: ToolDefinition<RowOf<K>> }

/** Checks a registry record against the manifest at compile time. @category constructors */
export const defineRegistry = <const T extends RegistryShape>(
  tools: T & { readonly [K in Exclude<keyof T, ToolName>]: never }
): T => tools

/** Every tool of this build. @category tools */
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
  search_panes,
  find_pane_by_position,
  wait_for_text,
  wait_for_channel,
  signal_channel,
  create_session,
  create_window,
  split_window,
  run_shell_command,
  send_keys,
  send_keys_batch,
  paste_text,
  kill_session
})

/** The definition of a registered tool, or `undefined`. */
export const definitionOf = (name: ToolName): ToolDefinition | undefined => (registry as RegistryShape)[name] as ToolDefinition | undefined

/** The names this build registers. */
export const registeredNames: ReadonlySet<ToolName> = new Set(Object.keys(registry) as Array<ToolName>)
