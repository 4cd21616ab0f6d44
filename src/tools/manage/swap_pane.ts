/** swap_pane: exchange the positions of two panes. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { PaneId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { oneAtATime } from "../../programs/guard.ts"
import { PaneInfo } from "../../programs/hierarchy.ts"
import { resolvePane } from "../../programs/targets.ts"
import { ArgumentProblem } from "../../services/errors.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const swap_pane = defineTool(manifest.swap_pane, {
  description: "Swap two panes, even across windows, with their contents and processes; the active pane stays.",
  input: Schema.Struct({ source_pane_id: PaneId, target_pane_id: PaneId }),
  output: PaneInfo,
  run: (input) =>
    oneAtATime(Effect.gen(function*() {
      if (input.source_pane_id === input.target_pane_id) {
        return yield* new ArgumentProblem({ detail: "source_pane_id and target_pane_id must differ" })
      }
      yield* resolvePane(input.source_pane_id)
      yield* resolvePane(input.target_pane_id)
      yield* (yield* TmuxChange).run([["swap-pane", "-d", "-s", input.source_pane_id, "-t", input.target_pane_id]])
      return yield* resolvePane(input.source_pane_id)
    }))
})
