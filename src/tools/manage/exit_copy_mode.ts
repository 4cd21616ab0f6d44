/** exit_copy_mode: leave copy mode. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { PaneId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { PaneInfo } from "../../programs/hierarchy.ts"
import { resolvePane } from "../../programs/targets.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const exit_copy_mode = defineTool(manifest.exit_copy_mode, {
  description: "Leave copy mode or another mode; a pane in none stays as it is.",
  input: Schema.Struct({ pane_id: PaneId }),
  output: PaneInfo,
  run: (input) =>
    Effect.gen(function*() {
      const pane = yield* resolvePane(input.pane_id)
      if (pane.pane_in_mode) yield* (yield* TmuxChange).run([["send-keys", "-X", "-t", input.pane_id, "cancel"]])
      return yield* resolvePane(input.pane_id)
    })
})
