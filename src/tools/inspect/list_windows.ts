/** list_windows: the windows of one session, or of every session. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { emptyWhenNoServer, listWindowRows, WindowInfo } from "../../programs/hierarchy.ts"
import { optionalSession, sessionTargetFields } from "../../programs/targets.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const list_windows = defineTool(manifest.list_windows, {
  description: "Windows of one session, or of all.",
  input: Schema.Struct(sessionTargetFields),
  output: Schema.Struct({
    windows: Schema.Array(WindowInfo).annotate({ description: "the windows, in tmux's order" })
  }),
  run: (input) =>
    Effect.gen(function*() {
      const session = yield* optionalSession(input)
      const windows = yield* emptyWhenNoServer(listWindowRows(session?.session_id))
      return { windows }
    })
})
