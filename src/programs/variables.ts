/**
 * What tmux's format variables mean, said once: every output field named after one (`session_id`,
 * `pane_pid`, `window_layout` ...) takes its description from here, so a field reads the same in
 * every tool that returns it.
 */
import * as Schema from "effect/Schema"
import { printedIds } from "../domain/ids.ts"

/** The description of each tmux variable a tool returns. */
export const variableDescriptions = {
  session_id: "session ID, e.g. $1",
  session_name: "session name",
  session_windows: "number of windows",
  session_attached: "number of attached clients",
  session_created: "creation time, Unix seconds",
  session_path: "the session's working directory",
  window_id: "window ID, e.g. @2",
  window_index: "index in its session",
  window_name: "window name",
  window_active: "whether it is its session's current window",
  window_panes: "number of panes",
  window_width: "width in cells",
  window_height: "height in cells",
  window_layout: "layout string, as select-layout accepts it",
  pane_id: "pane ID, e.g. %3",
  pane_index: "index in its window",
  pane_active: "whether it is its window's active pane",
  pane_width: "width in cells",
  pane_height: "height in cells",
  pane_left: "left edge, in cells from the window's left",
  pane_top: "top edge, in cells from the window's top",
  pane_title: "pane title (its program can change it)",
  pane_current_command: "name of the foreground process",
  pane_current_path: "working directory of the foreground process",
  pane_pid: "process ID of the pane's own process (usually its shell)",
  pane_tty: "the pane's terminal device",
  pane_dead: "whether the pane's process has exited",
  pane_in_mode: "whether the pane is in a mode such as copy mode"
} as const

/** A tmux variable name we describe. */
export type Variable = keyof typeof variableDescriptions

/** An output string field named after a tmux variable, described. @category schemas */
export const stringVariable = (name: Variable) => Schema.String.annotate({ description: variableDescriptions[name] })
/** An output ID field named after its tmux variable, described and branded by kind. @category schemas */
export const idVariable = <K extends keyof typeof idSchemas>(name: K): typeof idSchemas[K] =>
  idSchemas[name].annotate({ description: variableDescriptions[name] }) as typeof idSchemas[K]

const idSchemas = {
  session_id: printedIds["session-id"],
  window_id: printedIds["window-id"],
  pane_id: printedIds["pane-id"]
} as const

/** An output integer field named after a tmux variable, described. @category schemas */
export const intVariable = (name: Variable) => Schema.Int.annotate({ description: variableDescriptions[name] })
