/** kill_session: remove one session, named exactly; refuses the session this server runs in. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { oneAtATime, refuseOwnPane } from "../../programs/guard.ts"
import { listPaneRows } from "../../programs/hierarchy.ts"
import { resolveSession, sessionTargetFields } from "../../programs/targets.ts"
import { idVariable, stringVariable } from "../../programs/variables.ts"
import { TmuxDelete } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const kill_session = defineTool(manifest.kill_session, {
  description: "Kill a session and every window and process in it; irreversible. Refuses the " +
    "session of this MCP server's own pane. tmux exits with its last session.",
  input: Schema.Struct(sessionTargetFields),
  output: Schema.Struct({ session_id: idVariable("session_id"), session_name: stringVariable("session_name") }),
  run: (input) =>
    oneAtATime(Effect.gen(function*() {
      const session = yield* resolveSession(input)
      const panes = listPaneRows({ sessionId: session.session_id }).pipe(
        Effect.map((rows) => rows.map((pane) => pane.pane_id))
      )
      yield* refuseOwnPane(`session ${session.session_id}`, panes)
      const tmux = yield* TmuxDelete
      yield* tmux.run([["kill-session", "-t", session.session_id]])
      return { session_id: session.session_id, session_name: session.session_name }
    }))
})
