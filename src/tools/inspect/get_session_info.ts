/** get_session_info: one session, by exact ID or name. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { defineTool } from "../define.ts"
import { SessionInfo } from "../hierarchy.ts"
import { resolveSession, sessionTargetFields } from "../targets.ts"

/** @category tools */
export const get_session_info = defineTool(manifest.get_session_info, {
  description: "Describe one session, named by session_id or by exact session_name (a name never matches by prefix). " +
    "A session that does not exist is an error naming the sessions that do.",
  input: Schema.Struct(sessionTargetFields),
  output: SessionInfo,
  run: (input) => resolveSession("get_session_info", input)
})
