/**
 * Reads of one pane by ID, shared by the pane tools: the contract's typed pane reads, and the
 * mapping of "no such pane" from any tmux command into a `PaneNotFound` naming the panes that
 * exist.
 */
import * as Effect from "effect/Effect"
import type { TmuxError } from "../services/errors.ts"
import { type Fields, paneStateFields, reads } from "../services/TmuxReads.ts"
import { resolvePane } from "./targets.ts"

/** Turns a failure caused by a missing pane (or server) into a `PaneNotFound` that lists what exists. */
export const orPaneNotFound = (paneId: string) => <A, E extends TmuxError, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catch(
    effect,
    (error) =>
      error._tag === "ServerNotRunning" ||
        (error._tag === "TmuxCommandFailed" &&
          /can't find (pane|window|session)|no such (pane|window|session)|no current target/u.test(error.stderr))
        ? Effect.flatMap(resolvePane(paneId), () => Effect.fail(error))
        : Effect.fail(error)
  )

/** Splits captured text into rows, dropping the blank rows below the last written one. */
export const capturedRows = (stdout: string): Array<string> => {
  const text = stdout.replace(/\s+$/u, "")
  return text === "" ? [] : text.split("\n")
}

/** The `capture-pane -S` row (relative to the screen's top, negative in history) of absolute row `row`. */
export const relativeRow = (row: number, historySize: number): number => Math.max(row - historySize, -historySize)

/** Reads format fields of one pane in one invocation. */
export const readPane = <F extends Fields>(paneId: string, fields: F) =>
  Effect.flatMap(reads, (tmux) => tmux.pane(paneId, fields)).pipe(orPaneNotFound(paneId))

/** Pane state the control-loop tools check before acting. */
export const stateFields = paneStateFields

/** Reads format fields of one pane and captures its rows (`capture-pane -p` with `captureArgs`) in one invocation. */
export const readAndCapture = <F extends Fields>(paneId: string, fields: F, captureArgs: ReadonlyArray<string>) =>
  Effect.flatMap(reads, (tmux) => tmux.paneAndCapture(paneId, fields, captureArgs)).pipe(orPaneNotFound(paneId))
