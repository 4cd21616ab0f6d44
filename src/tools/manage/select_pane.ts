/** select_pane: make a pane the active pane of its window. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { PaneId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { PaneInfo, parsePaneRows } from "../../programs/hierarchy.ts"
import { orPaneNotFound } from "../../programs/pane.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { readBack } from "../../services/TmuxReads.ts"
import { defineTool } from "../define.ts"

const flags = { up: "-U", down: "-D", left: "-L", right: "-R" } as const

/** @category tools */
export const select_pane = defineTool(manifest.select_pane, {
  description:
    "Make a pane its window's active one: pane_id, or its neighbour in direction (next/previous move on each call).",
  input: Schema.Struct({
    pane_id: PaneId,
    direction: Schema.optionalKey(
      Schema.Literals(["up", "down", "left", "right", "next", "previous"]).annotate({
        description: "select this neighbour of pane_id instead"
      })
    )
  }),
  output: PaneInfo,
  run: (input) =>
    Effect.gen(function*() {
      const tmux = yield* TmuxChange
      const direction = input.direction
      let target = input.pane_id
      if (direction === "next" || direction === "previous") {
        const panes = yield* parsePaneRows(
          yield* tmux.run([readBack.panes(input.pane_id)]).pipe(orPaneNotFound(input.pane_id))
        )
        const at = panes.findIndex((candidate) => candidate.pane_id === input.pane_id)
        target = panes[(at + (direction === "next" ? 1 : -1) + panes.length) % panes.length]!.pane_id
      }
      const move = direction === undefined || direction === "next" || direction === "previous" ? [] : [flags[direction]]
      // Select and read the window back in one invocation; a missing pane fails it before anything changes.
      const stdout = yield* tmux.run([["select-pane", "-t", target, ...move], readBack.panes(target)]).pipe(
        orPaneNotFound(input.pane_id)
      )
      return (yield* parsePaneRows(stdout)).find((candidate) => candidate.pane_active)!
    })
})
