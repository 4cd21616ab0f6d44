/** get_session_info: one session, by exact ID or name. */
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { SessionInfo } from "../../programs/hierarchy.ts"
import { resolveSession, sessionTargetFields } from "../../programs/targets.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const get_session_info = defineTool(manifest.get_session_info, {
  description: "One session's metadata.",
  input: Schema.Struct(sessionTargetFields),
  output: SessionInfo,
  run: (input) => resolveSession(input)
})
