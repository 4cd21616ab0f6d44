/**
 * Pane views from tmux: the state and the rows in one invocation, re-read when the history moved
 * between computing the range and capturing it.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { PaneId } from "../domain/ids.ts"
import { capturedRows, captureRows, joinedLines, relativeRow, trimSpaces, wrapsOf } from "../domain/rows.ts"
import { PaneReader, type PaneView } from "../services/PaneReader.ts"
import type { ServerPane } from "../services/ServerPane.ts"
import type { SocketPin } from "../services/SocketPin.ts"
import type { TmuxObserve } from "../services/Tmux.ts"
import { type Fields, orPaneNotFound, reads } from "../services/TmuxReads.ts"
import { makePacer } from "./PaneActivityLive.ts"

const viewFields = {
  pane_pid: "int",
  pane_dead: "bool",
  alternate_on: "bool",
  history_size: "int",
  cursor_y: "int",
  pid: "int"
} as const satisfies Fields

/** How many panes' history sizes are remembered, most recently read first. */
const historyMemory = 1_000

/**
 * The live reader, and how many panes it remembers a history size for. A read that fails (the pane
 * is gone) forgets its pane.
 * @category constructors
 */
export const make = Effect.gen(function*() {
  const context = yield* Effect.context<TmuxObserve | SocketPin | ServerPane>()
  // The history size last seen per pane: a range read then usually needs one invocation, not two.
  const lastHistory = new Map<string, number>()
  const remember = (paneId: PaneId, history: number) => {
    lastHistory.delete(paneId)
    lastHistory.set(paneId, history)
    if (lastHistory.size > historyMemory) lastHistory.delete(lastHistory.keys().next().value!)
  }
  const read = Effect.fn("PaneReader.read")(
    function*(paneId: PaneId, from?: number, options?: { readonly joined: boolean }) {
      yield* Effect.annotateCurrentSpan("pane_id", paneId)
      let guess = lastHistory.get(paneId) ?? 0
      for (let attempt = 0;; attempt++) {
        const start = from === undefined ? undefined : relativeRow(from, guess)
        const range = ["-S", start === undefined ? "0" : String(start), "-E", "-"]
        const { state, captured } = yield* Effect.flatMap(
          reads,
          (tmux) =>
            options?.joined === true
              ? tmux.paneAndCaptures(paneId, viewFields, [["-N", ...range], ["-J", ...range]])
              : Effect.map(
                tmux.paneAndCapture(paneId, viewFields, range),
                (read) => ({ ...read, captured: [read.captured] })
              )
        ).pipe(orPaneNotFound(paneId))
        const history = state.history_size
        remember(paneId, history)
        const wanted = from === undefined ? undefined : relativeRow(from, history)
        if (start !== wanted && attempt < 3) {
          guess = history
          continue
        }
        const firstRow = history + (start ?? 0)
        const skip = from === undefined ? state.cursor_y : 0
        const [text = "", joinedText] = captured
        const view = {
          pid: state.pane_pid,
          dead: state.pane_dead,
          alternate: state.alternate_on,
          historySize: history,
          cursorY: state.cursor_y,
          serverPid: state.pid,
          firstRow: firstRow + skip
        }
        if (joinedText === undefined) return { ...view, rows: capturedRows(text).slice(skip) } satisfies PaneView
        // The cells (`-N`) trimmed as tmux trims a plain capture are the same rows.
        const cells = captureRows(text)
        const rows = capturedRows(cells.map(trimSpaces).join("\n"))
        const wraps = wrapsOf(cells, captureRows(joinedText))
        const lines = joinedLines(cells.slice(skip, rows.length), wraps.slice(skip, rows.length))
        return { ...view, rows: rows.slice(skip), lines } satisfies PaneView
      }
    },
    (effect, paneId) =>
      effect.pipe(
        Effect.tapError(() => Effect.sync(() => lastHistory.delete(paneId))),
        Effect.provideContext(context)
      )
  )
  return {
    service: PaneReader.of({ read, pacer: (view) => makePacer({ panePid: view.pid, serverPid: view.serverPid }) }),
    panes: () => lastHistory.size
  }
})

/** The live reader. @category layers */
export const layer: Layer.Layer<PaneReader, never, TmuxObserve | SocketPin | ServerPane> = Layer.effect(
  PaneReader,
  Effect.map(make, (reader) => reader.service)
)
