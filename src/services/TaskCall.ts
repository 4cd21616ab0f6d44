/**
 * What a call made for an MCP task (wire/Tasks.ts) tells run_shell_command, and what the tool tells
 * back: a new run's record holds the task and the call holds the run only up to the threshold; a
 * task's resume checks the run's record holds that task. Outside a task the call is as always.
 */
import * as Context from "effect/Context"
import type { RecordedTask } from "../domain/runRecord.ts"

/** The task side of one call. @category models */
export interface TaskCallShape {
  /** The task a new run's record is to hold, or a task's resume expects its record to hold. */
  readonly task?: RecordedTask | undefined
  /** A task's watcher, waiting in the background: the run's wait looks at the pane at a background pace. */
  readonly background?: boolean | undefined
  /** For a new run: the longest the call waits before the run becomes a task, in seconds. */
  readonly threshold?: number | undefined
  /** Told the run's ID, once a new run outlasted the threshold (or blocked) with its record holding the task. */
  readonly attached: (runId: string) => void
  /** Told, when the call answers a run unfinished, the program in front in its pane (the task's status says it). */
  readonly front?: ((program: string) => void) | undefined
  /** Told by a task's resume the task the run's record holds, or `undefined` when it holds no such task. */
  readonly found: (task: RecordedTask | undefined) => void
}

/** The task side of a call; by default none. @category services */
export const TaskCall: Context.Reference<TaskCallShape> = Context.Reference<TaskCallShape>(
  "libtmux-mcp/services/TaskCall",
  { defaultValue: () => ({ attached: () => undefined, found: () => undefined }) }
)
