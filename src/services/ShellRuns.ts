/**
 * This process's cache of the runs of run_shell_command it typed and has not yet collected, and
 * the per-pane turn that keeps two of its calls from working on one pane at once. The runs' truth
 * is on their panes, in tmux (domain/runRecord.ts), where every server instance sees it.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { PaneId } from "../domain/ids.ts"
import type { Run } from "../domain/runRecord.ts"

export type { Run } from "../domain/runRecord.ts"

/**
 * What this process saw of a pane when its last run there finished: enough for the next run to type
 * without looking at the pane first, when /proc says the same shell is idle at its prompt; the
 * typing list's guard checks the rest (domain/typingGuard.ts). @category models
 */
export interface HeldView {
  readonly panePid: number
  readonly tty: string
  readonly shell: string
  /** The cells before the cursor on the prompt row, and where the prompt ends. */
  readonly prompt: string
  readonly cursorX: number
  readonly width: number
  readonly height: number
  /** The pane's typing generation after that run (see domain/runRecord.ts). */
  readonly generation: number
}

/** What is known of a run ID. @category models */
export type RunLookup =
  | { readonly _tag: "Pending"; readonly run: Run }
  | { readonly _tag: "Collected"; readonly paneId: PaneId }
  | { readonly _tag: "Unknown" }

/** The run registry. @category services */
export class ShellRuns extends Context.Service<ShellRuns, {
  /**
   * Runs `effect` as the only run_shell_command call working on the pane, after the calls before it
   * (first come, first served); `None` when its turn did not come within `timeoutMs`.
   */
  exclusive<A, E, R>(
    paneId: PaneId,
    timeoutMs: number,
    effect: Effect.Effect<A, E, R>
  ): Effect.Effect<Option.Option<A>, E, R>
  lookup(runId: string): Effect.Effect<RunLookup>
  /** Keeps a run for `resume`. */
  hold(run: Run): Effect.Effect<void>
  /** Forgets a run whose result was returned. */
  collect(run: Run): Effect.Effect<void>
  /** Keeps what was seen of a pane whose run finished. */
  keepView(paneId: PaneId, view: HeldView): Effect.Effect<void>
  /** What was kept of a pane, removed: it serves one run at most. */
  takeView(paneId: PaneId): Effect.Effect<HeldView | undefined>
}>()("libtmux-mcp/services/ShellRuns") {}
