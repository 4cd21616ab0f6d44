/** list_panes: the panes of one window, one session, or the whole server. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { WindowId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { emptyWhenNoServer, listPaneRows, PaneInfo } from "../../programs/hierarchy.ts"
import { optionalSession, resolveWindow, sessionTargetFields } from "../../programs/targets.ts"
import { ArgumentProblem } from "../../services/errors.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const list_panes = defineTool(manifest.list_panes, {
  description: "Panes of one window, one session, or all.",
  input: Schema.Struct({ ...sessionTargetFields, window_id: Schema.optionalKey(WindowId) }),
  output: Schema.Struct({ panes: Schema.Array(PaneInfo).annotate({ description: "the panes, in tmux's order" }) }),
  run: (input) =>
    Effect.gen(function*() {
      const { window_id, ...session } = input
      if (window_id !== undefined) {
        if (session.session_id !== undefined || session.session_name !== undefined) {
          return yield* new ArgumentProblem({ detail: "give window_id or a session, not both" })
        }
        const window = yield* resolveWindow({ window_id })
        return { panes: yield* listPaneRows({ windowId: window.window_id }) }
      }
      const target = yield* optionalSession(session)
      const panes = yield* emptyWhenNoServer(
        listPaneRows(target === undefined ? "all" : { sessionId: target.session_id })
      )
      return { panes }
    })
})
