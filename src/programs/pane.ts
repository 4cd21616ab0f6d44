/**
 * Reads of one pane by ID, shared by the pane tools: the contract's typed pane reads, and the
 * mapping of "no such pane" from any tmux command into a `PaneNotFound` naming the panes that
 * exist.
 */
import * as Effect from "effect/Effect"
import type { PaneId } from "../domain/ids.ts"
import { type Fields, orPaneNotFound, paneStateFields, reads } from "../services/TmuxReads.ts"

// Lives with the reads (the live pane reader needs it too); the pane tools take it from here.
export { orPaneNotFound }

/** Reads format fields of one pane in one invocation. */
export const readPane = <F extends Fields>(paneId: PaneId, fields: F) =>
  Effect.flatMap(reads, (tmux) => tmux.pane(paneId, fields)).pipe(orPaneNotFound(paneId))

/** Pane state the control-loop tools check before acting. */
export const stateFields = paneStateFields

/** Reads format fields of one pane and captures its rows (`capture-pane -p` with `captureArgs`) in one invocation. */
export const readAndCapture = <F extends Fields>(paneId: PaneId, fields: F, captureArgs: ReadonlyArray<string>) =>
  Effect.flatMap(reads, (tmux) => tmux.paneAndCapture(paneId, fields, captureArgs)).pipe(orPaneNotFound(paneId))
