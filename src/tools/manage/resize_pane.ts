/** resize_pane: set a pane's size, or zoom it to fill its window. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { PaneId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { PaneInfo, paneOf } from "../../programs/hierarchy.ts"
import { orPaneNotFound, readPane } from "../../programs/pane.ts"
import { ArgumentProblem } from "../../services/errors.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { readBack } from "../../services/TmuxReads.ts"
import { defineTool } from "../define.ts"

const Cells = (what: string) =>
  Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10_000 })).annotate({ description: `${what} in cells` })

/** @category tools */
export const resize_pane = defineTool(manifest.resize_pane, {
  description: "Set a pane's size in cells (neighbours adjust), or its zoom.",
  input: Schema.Struct({
    pane_id: PaneId,
    width: Schema.optionalKey(Cells("width")),
    height: Schema.optionalKey(Cells("height")),
    zoom: Schema.optionalKey(Schema.Boolean.annotate({ description: "zoom (true) or unzoom (false)" }))
  }),
  output: PaneInfo,
  run: (input) =>
    Effect.gen(function*() {
      const sized = input.width !== undefined || input.height !== undefined
      if (sized === (input.zoom !== undefined)) {
        return yield* new ArgumentProblem({ detail: "give width and/or height, or zoom, but not both" })
      }
      const tmux = yield* TmuxChange
      const pane = input.pane_id
      if (input.zoom !== undefined) {
        // Zoom toggles: read the flag first, so asking for the state it is in changes nothing.
        const { window_zoomed_flag: zoomed } = yield* readPane(pane, { window_zoomed_flag: "bool" })
        if (zoomed !== input.zoom) yield* tmux.run([["resize-pane", "-Z", "-t", pane]]).pipe(orPaneNotFound(pane))
        return yield* paneOf(pane, yield* tmux.run([readBack.panes(pane)]).pipe(orPaneNotFound(pane)))
      }
      const stdout = yield* tmux.run([
        [
          "resize-pane",
          "-t",
          pane,
          ...(input.width === undefined ? [] : ["-x", String(input.width)]),
          ...(input.height === undefined ? [] : ["-y", String(input.height)])
        ],
        readBack.panes(pane)
      ]).pipe(orPaneNotFound(pane))
      return yield* paneOf(pane, stdout)
    })
})
