/** select_pane: make a pane the active pane of its window. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"
import { listPaneRows, PaneInfo } from "../hierarchy.ts"
import { PaneId, resolvePane } from "../targets.ts"

const flags = { up: "-U", down: "-D", left: "-L", right: "-R" } as const

/** @category tools */
export const select_pane = defineTool(manifest.select_pane, {
  description: "Make a pane the active pane of its window: pane_id itself, or with direction the pane up, down, left " +
    "or right of it, or the next or previous pane of its window (wrapping). next and previous move again on every " +
    "call. Returns the window's active pane afterwards.",
  input: Schema.Struct({
    pane_id: PaneId,
    direction: Schema.optionalKey(Schema.Literals(["up", "down", "left", "right", "next", "previous"]).annotate({
      description: "select the pane in this direction from pane_id instead of pane_id itself"
    }))
  }),
  output: PaneInfo,
  run: (input) =>
    Effect.gen(function*() {
      const pane = yield* resolvePane(input.pane_id)
      const tmux = yield* TmuxChange
      const direction = input.direction
      if (direction === "next" || direction === "previous") {
        const panes = yield* listPaneRows({ windowId: pane.window_id })
        const at = panes.findIndex((candidate) => candidate.pane_id === pane.pane_id)
        const step = direction === "next" ? 1 : -1
        yield* tmux.run([["select-pane", "-t", panes[(at + step + panes.length) % panes.length]!.pane_id]])
      } else {
        yield* tmux.run([["select-pane", "-t", pane.pane_id, ...(direction === undefined ? [] : [flags[direction]])]])
      }
      const panes = yield* listPaneRows({ windowId: pane.window_id })
      return panes.find((candidate) => candidate.pane_active)!
    })
})
