/** get_window_info: one window, by ID or by session and index. */
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { defineTool } from "../define.ts"
import { WindowInfo } from "../hierarchy.ts"
import { resolveWindow, windowTargetFields } from "../targets.ts"

/** @category tools */
export const get_window_info = defineTool(manifest.get_window_info, {
  description: "Describe one window, named by window_id, or by a session (session_id or exact session_name) " +
    "together with window_index. A window that does not exist is an error naming the windows that do.",
  input: Schema.Struct(windowTargetFields),
  output: WindowInfo,
  run: (input) => resolveWindow("get_window_info", input)
})
