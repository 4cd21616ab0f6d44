/** snapshot_pane: a pane's screen, cursor, modes and metadata, read in one tmux invocation. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { tailBound } from "../../domain/bounds.ts"
import { PaneId } from "../../domain/ids.ts"
import { capturedRows } from "../../domain/rows.ts"
import { manifest } from "../../manifest/index.ts"
import { PaneInfo } from "../../programs/hierarchy.ts"
import { boundFields, outputLimits, truncationFields } from "../../programs/outputBounds.ts"
import { readAndCapture } from "../../programs/pane.ts"
import { ServerPane } from "../../services/ServerPane.ts"
import { paneFields } from "../../services/TmuxReads.ts"
import { defineTool } from "../define.ts"

const snapshotFields = {
  ...paneFields,
  cursor_x: "int",
  cursor_y: "int",
  history_size: "int",
  alternate_on: "bool",
  pane_mode: "string",
  scroll_position: "string"
} as const

/** @category tools */
export const snapshot_pane = defineTool(manifest.snapshot_pane, {
  description: "A pane in one consistent read: screen, cursor, modes, history size and metadata.",
  input: Schema.Struct({ pane_id: PaneId, ...boundFields }),
  output: Schema.Struct({
    ...PaneInfo.fields,
    cursor_x: Schema.Int.annotate({ description: "cursor column, 0 at the left" }),
    cursor_y: Schema.Int.annotate({ description: "cursor row, 0 at the top of the screen" }),
    history_size: Schema.Int.annotate({ description: "rows of history above the screen" }),
    alternate_on: Schema.Boolean.annotate({ description: "a full-screen program has the alternate screen" }),
    pane_mode: Schema.String.annotate({ description: "the tmux mode the pane is in (copy-mode ...), or empty" }),
    scroll_position: Schema.NullOr(Schema.Int).annotate({
      description: "rows scrolled back in copy mode, or null outside it"
    }),
    content: Schema.String.annotate({ description: "the visible screen's text" }),
    ...truncationFields
  }),
  run: (input) =>
    Effect.gen(function*() {
      const own = yield* ServerPane.use((caller) => caller.panes)
      const { state, captured } = yield* readAndCapture(input.pane_id, snapshotFields, [])
      const bounded = tailBound(
        capturedRows(captured),
        input.max_lines ?? outputLimits.maxLines,
        input.max_bytes ?? outputLimits.maxBytes
      )
      const { scroll_position, ...rest } = state
      return {
        ...rest,
        is_caller: own.includes(rest.pane_id),
        scroll_position: scroll_position === "" ? null : Number.parseInt(scroll_position, 10),
        content: bounded.lines.join("\n"),
        truncated_lines: bounded.truncatedLines,
        truncated_bytes: bounded.truncatedBytes
      }
    })
})
