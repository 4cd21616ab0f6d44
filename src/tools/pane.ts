/**
 * Reads of one pane by ID, shared by the pane tools: state fields in one `display-message`, and
 * the mapping of "no such pane" from any tmux command into a `PaneNotFound` naming the panes that
 * exist.
 */
import * as Effect from "effect/Effect"
import type { TmuxError } from "../services/errors.ts"
import { TmuxObserve } from "../services/Tmux.ts"
import { type Fields, formatOf, parseRows, type Row } from "./hierarchy.ts"
import { resolvePane } from "./targets.ts"

/** Turns a failure caused by a missing pane (or server) into a `PaneNotFound` that lists what exists. */
export const orPaneNotFound = (paneId: string) =>
<A, E extends TmuxError, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catch(effect, (error) =>
    error._tag === "ServerNotRunning" || (error._tag === "TmuxCommandFailed" && /can't find (pane|window|session)|no current target/u.test(error.stderr))
      ? Effect.flatMap(resolvePane(paneId), () => Effect.fail(error))
      : Effect.fail(error))

/** Reads format fields of one pane in one invocation. */
export const readPane = <F extends Fields>(paneId: string, fields: F) =>
  Effect.gen(function*() {
    const tmux = yield* TmuxObserve
    const stdout = yield* tmux.run([["display-message", "-p", "-t", paneId, formatOf(fields)]]).pipe(orPaneNotFound(paneId))
    const [row] = yield* parseRows(fields, "display-message", `${stdout}`)
    return row as Row<F>
  })

/** Pane state the control-loop tools check before acting. */
export const stateFields = {
  pane_pid: "int",
  pane_dead: "bool",
  pane_in_mode: "bool",
  alternate_on: "bool",
  cursor_x: "int",
  cursor_y: "int",
  history_size: "int",
  history_limit: "int",
  pane_height: "int",
  pane_width: "int",
  pane_current_command: "string"
} as const satisfies Fields
