/** get_pane_info: one pane, by ID. */
import * as Schema from "effect/Schema"
import { PaneId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { PaneInfo } from "../../programs/hierarchy.ts"
import { resolvePane } from "../../programs/targets.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const get_pane_info = defineTool(manifest.get_pane_info, {
  description: "One pane's metadata.",
  input: Schema.Struct({ pane_id: PaneId }),
  output: PaneInfo,
  run: (input) => resolvePane(input.pane_id)
})
