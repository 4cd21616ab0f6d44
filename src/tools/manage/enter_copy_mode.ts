/** enter_copy_mode: put a pane in copy mode, optionally scrolled back. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { PaneId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { PaneInfo, paneOf } from "../../programs/hierarchy.ts"
import { orPaneNotFound } from "../../programs/pane.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { readBack } from "../../services/TmuxReads.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const enter_copy_mode = defineTool(manifest.enter_copy_mode, {
  description: "Put a pane in copy mode (keys go to it), optionally scrolled up. " +
    "run_shell_command refuses such a pane; exit_copy_mode leaves it.",
  input: Schema.Struct({
    pane_id: PaneId,
    scroll_up: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100_000 })).annotate({
        description: "lines to scroll back"
      })
    )
  }),
  output: PaneInfo,
  run: (input) =>
    Effect.gen(function*() {
      // One invocation: a missing pane fails it at copy-mode, before anything else runs.
      const stdout = yield* (yield* TmuxChange).run([
        ["copy-mode", "-t", input.pane_id],
        ...(input.scroll_up === undefined
          ? []
          : [["send-keys", "-X", "-N", String(input.scroll_up), "-t", input.pane_id, "scroll-up"] as const]),
        readBack.panes(input.pane_id)
      ]).pipe(orPaneNotFound(input.pane_id))
      return yield* paneOf(input.pane_id, stdout)
    })
})
