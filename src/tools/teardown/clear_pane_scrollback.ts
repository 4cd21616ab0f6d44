/** clear_pane_scrollback: discard a pane's history. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { PaneId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { orPaneNotFound } from "../../programs/pane.ts"
import { idVariable } from "../../programs/variables.ts"
import { TmuxDelete } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const clear_pane_scrollback = defineTool(manifest.clear_pane_scrollback, {
  description: "Discard a pane's history for good; the screen stays.",
  input: Schema.Struct({ pane_id: PaneId }),
  output: Schema.Struct({
    pane_id: idVariable("pane_id"),
    lines_discarded: Schema.Int.annotate({ description: "history rows discarded" })
  }),
  run: (input) =>
    Effect.gen(function*() {
      const stdout = yield* (yield* TmuxDelete).run([
        ["display-message", "-p", "-t", input.pane_id, "#{history_size}"],
        ["clear-history", "-t", input.pane_id]
      ]).pipe(orPaneNotFound(input.pane_id))
      return { pane_id: input.pane_id, lines_discarded: Number.parseInt(stdout.trim(), 10) || 0 }
    })
})
