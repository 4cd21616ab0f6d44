/**
 * Reads of one pane by ID, shared by the pane tools: state fields in one `display-message`, and
 * the mapping of "no such pane" from any tmux command into a `PaneNotFound` naming the panes that
 * exist.
 */
import * as Effect from "effect/Effect"
import { type TmuxError, TmuxCommandFailed } from "../services/errors.ts"
import { TmuxObserve } from "../services/Tmux.ts"
import { type Fields, formatOf, FS, parseRows, type Row, RS } from "./hierarchy.ts"
import { resolvePane } from "./targets.ts"

/** Turns a failure caused by a missing pane (or server) into a `PaneNotFound` that lists what exists. */
export const orPaneNotFound = (paneId: string) =>
<A, E extends TmuxError, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catch(effect, (error) =>
    error._tag === "ServerNotRunning" || (error._tag === "TmuxCommandFailed" && /can't find (pane|window|session)|no such (pane|window|session)|no current target/u.test(error.stderr))
      ? Effect.flatMap(resolvePane(paneId), () => Effect.fail(error))
      : Effect.fail(error))

/** Splits captured text into rows, dropping the blank rows below the last written one. */
export const capturedRows = (stdout: string): Array<string> => {
  const text = stdout.replace(/\s+$/u, "")
  return text === "" ? [] : text.split("\n")
}

/** The `capture-pane -S` row (relative to the screen's top, negative in history) of absolute row `row`. */
export const relativeRow = (row: number, historySize: number): number => Math.max(row - historySize, -historySize)

/**
 * tmux 3.3a's `display-message -p -t %99` prints empty fields and exits 0: a read whose
 * `#{pane_id}` is not the target found no pane. Answers with the not-found error naming what exists.
 */
const missingPane = (paneId: string) =>
  Effect.flatMap(resolvePane(paneId), () =>
    Effect.fail(new TmuxCommandFailed({ command: "display-message", exitCode: 0, stderr: `pane ${paneId} did not answer` })))

/** Reads format fields of one pane in one invocation. */
export const readPane = <F extends Fields>(paneId: string, fields: F) =>
  Effect.gen(function*() {
    const tmux = yield* TmuxObserve
    const stdout = yield* tmux.run([["display-message", "-p", "-t", paneId, `#{pane_id}${FS}${formatOf(fields)}`]]).pipe(orPaneNotFound(paneId))
    if (!stdout.startsWith(paneId + FS)) return yield* missingPane(paneId)
    const [row] = yield* parseRows(fields, "display-message", stdout.slice(paneId.length + 1))
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

/** Reads format fields of one pane and captures its rows (`capture-pane -p` with `captureArgs`) in one invocation. */
export const readAndCapture = <F extends Fields>(paneId: string, fields: F, captureArgs: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const stdout = yield* (yield* TmuxObserve).run([
      ["display-message", "-p", "-t", paneId, `#{pane_id}${FS}${formatOf(fields)}`],
      ["capture-pane", "-p", "-t", paneId, ...captureArgs]
    ]).pipe(orPaneNotFound(paneId))
    if (!stdout.startsWith(paneId + FS)) return yield* missingPane(paneId)
    const split = stdout.indexOf(`${RS}\n`) + 2
    const [state] = yield* parseRows(fields, "display-message", stdout.slice(paneId.length + 1, split))
    return { state: state as Row<F>, captured: stdout.slice(split) }
  })
