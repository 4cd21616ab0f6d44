/** kill_pane: remove one pane and its process. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { PaneId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { oneAtATime, refuseOwnPane } from "../../programs/guard.ts"
import { resolvePane } from "../../programs/targets.ts"
import { idVariable } from "../../programs/variables.ts"
import { TmuxDelete } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const kill_pane = defineTool(manifest.kill_pane, {
  description: "Kill a pane and its process; irreversible. A window losing " +
    "its last pane goes too. Refuses this MCP server's own pane.",
  input: Schema.Struct({ pane_id: PaneId }),
  output: Schema.Struct({
    pane_id: idVariable("pane_id"),
    window_id: idVariable("window_id"),
    session_id: idVariable("session_id")
  }),
  run: (input) =>
    oneAtATime(Effect.gen(function*() {
      const pane = yield* resolvePane(input.pane_id)
      yield* refuseOwnPane(`pane ${pane.pane_id}`, Effect.succeed([pane.pane_id]))
      yield* (yield* TmuxDelete).run([["kill-pane", "-t", pane.pane_id]])
      return { pane_id: pane.pane_id, window_id: pane.window_id, session_id: pane.session_id }
    }))
})
