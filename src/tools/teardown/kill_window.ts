/** kill_window: remove one window, its panes and their processes. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { WindowId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { oneAtATime, refuseOwnPane } from "../../programs/guard.ts"
import { listPaneRows } from "../../programs/hierarchy.ts"
import { resolveWindow } from "../../programs/targets.ts"
import { idVariable, stringVariable } from "../../programs/variables.ts"
import { TmuxDelete } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const kill_window = defineTool(manifest.kill_window, {
  description:
    "Kill a window and every pane and process in it; irreversible. Refuses the window of this MCP server's own pane.",
  input: Schema.Struct({ window_id: WindowId }),
  output: Schema.Struct({
    window_id: idVariable("window_id"),
    window_name: stringVariable("window_name"),
    session_id: idVariable("session_id")
  }),
  run: (input) =>
    oneAtATime(Effect.gen(function*() {
      const window = yield* resolveWindow({ window_id: input.window_id })
      const panes = listPaneRows({ windowId: window.window_id }).pipe(
        Effect.map((rows) => rows.map((pane) => pane.pane_id))
      )
      yield* refuseOwnPane(`window ${window.window_id}`, panes)
      yield* (yield* TmuxDelete).run([["kill-window", "-t", window.window_id]])
      return { window_id: window.window_id, window_name: window.window_name, session_id: window.session_id }
    }))
})
