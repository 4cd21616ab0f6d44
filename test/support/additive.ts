/**
 * The linked tests behind every `destructiveHint: false`: for each such tool, a call whose effect on
 * tmux state is checked to be observational (nothing changes) or additive (everything that was
 * there is still there, unchanged). A unit test keeps this table equal to the set of tools that
 * advertise destructiveHint false.
 */
export type Kind = "observational" | "additive"

/** The objects of a scenario world: a session `work` with one pane. */
export interface Scene {
  readonly session: string
  readonly window: string
  readonly pane: string
}

/** For each non-destructive tool: what it must be, and a call to make. */
export const nonDestructive: Record<
  string,
  { readonly kind: Kind; readonly args: (scene: Scene) => Record<string, unknown> }
> = {
  list_sessions: { kind: "observational", args: () => ({}) },
  list_windows: { kind: "observational", args: (s) => ({ session_id: s.session }) },
  list_panes: { kind: "observational", args: () => ({}) },
  get_server_info: { kind: "observational", args: () => ({}) },
  get_session_info: { kind: "observational", args: () => ({ session_name: "work" }) },
  get_window_info: { kind: "observational", args: (s) => ({ window_id: s.window }) },
  get_pane_info: { kind: "observational", args: (s) => ({ pane_id: s.pane }) },
  capture_pane: { kind: "observational", args: (s) => ({ pane_id: s.pane, start: -50 }) },
  capture_since: { kind: "observational", args: (s) => ({ pane_id: s.pane }) },
  snapshot_pane: { kind: "observational", args: (s) => ({ pane_id: s.pane }) },
  view_pane: { kind: "observational", args: (s) => ({ pane_id: s.pane }) },
  search_panes: { kind: "observational", args: () => ({ pattern: "x", history_lines: 10 }) },
  find_pane_by_position: { kind: "observational", args: (s) => ({ window_id: s.window, position: "center" }) },
  wait_for_text: { kind: "observational", args: (s) => ({ pane_id: s.pane, timeout: 0.2 }) },
  get_tmux_variables: { kind: "observational", args: (s) => ({ pane_id: s.pane, names: ["pane_id", "session_name"] }) },
  show_option: { kind: "observational", args: () => ({ scope: "server", name: "exit-empty" }) },
  show_environment: { kind: "observational", args: () => ({}) },
  show_hooks: { kind: "observational", args: () => ({}) },
  call_read_tools_batch: {
    kind: "observational",
    args: (s) => ({ operations: [{ tool: "list_panes" }, { tool: "capture_pane", arguments: { pane_id: s.pane } }] })
  },
  create_session: { kind: "additive", args: () => ({ session_name: "added" }) },
  create_window: { kind: "additive", args: (s) => ({ session_id: s.session, window_name: "added" }) },
  split_window: { kind: "additive", args: (s) => ({ pane_id: s.pane }) }
}
