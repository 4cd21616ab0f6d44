/** find_pane_by_position: the pane at a corner or the centre of a window. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { WindowId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { listPaneRows, PaneInfo } from "../../programs/hierarchy.ts"
import { resolveWindow, sessionTargetFields, windowTargetFields } from "../../programs/targets.ts"
import { defineTool } from "../define.ts"

const positions = ["top-left", "top-right", "bottom-left", "bottom-right", "center"] as const

/** The pane containing the cell at `position` of the window the panes tile. */
export const paneAt = (panes: ReadonlyArray<PaneInfo>, position: typeof positions[number]): PaneInfo | undefined => {
  const right = (pane: PaneInfo) => pane.pane_left + pane.pane_width - 1
  const bottom = (pane: PaneInfo) => pane.pane_top + pane.pane_height - 1
  const minX = Math.min(...panes.map((pane) => pane.pane_left))
  const minY = Math.min(...panes.map((pane) => pane.pane_top))
  const maxX = Math.max(...panes.map(right))
  const maxY = Math.max(...panes.map(bottom))
  const [x, y]: readonly [number, number] = ({
    "top-left": [minX, minY],
    "top-right": [maxX, minY],
    "bottom-left": [minX, maxY],
    "bottom-right": [maxX, maxY],
    "center": [Math.floor((minX + maxX) / 2), Math.floor((minY + maxY) / 2)]
  } as const satisfies Record<typeof positions[number], readonly [number, number]>)[position]
  // Exactly one pane contains a cell; on a border cell (centre), the nearest pane by distance wins.
  const distance = (pane: PaneInfo) =>
    Math.max(0, pane.pane_left - x, x - right(pane)) + Math.max(0, pane.pane_top - y, y - bottom(pane))
  return [...panes].sort((a, b) => distance(a) - distance(b) || a.pane_top - b.pane_top || a.pane_left - b.pane_left)[0]
}

/** @category tools */
export const find_pane_by_position = defineTool(manifest.find_pane_by_position, {
  description: "The pane covering a window's corner or centre cell.",
  input: Schema.Struct({
    window_id: Schema.optionalKey(WindowId),
    ...sessionTargetFields,
    window_index: windowTargetFields.window_index,
    position: Schema.Literals(positions).annotate({ description: "corner or centre" })
  }),
  output: PaneInfo,
  run: (input) =>
    Effect.gen(function*() {
      const window = yield* resolveWindow(input)
      const panes = yield* listPaneRows({ windowId: window.window_id })
      return paneAt(panes, input.position)!
    })
})
