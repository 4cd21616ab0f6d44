/** get_window_info: one window, by ID or by session and index. */
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { WindowInfo } from "../../programs/hierarchy.ts"
import { resolveWindow, windowTargetFields } from "../../programs/targets.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const get_window_info = defineTool(manifest.get_window_info, {
  description: "One window's metadata.",
  input: Schema.Struct(windowTargetFields),
  output: WindowInfo,
  run: (input) => resolveWindow(input)
})
