/** set_pane_title: set a pane's title, literally. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { PaneId } from "../../domain/ids.ts"
import { literalizeFormat } from "../../domain/names.ts"
import { manifest } from "../../manifest/index.ts"
import { PaneInfo, paneOf } from "../../programs/hierarchy.ts"
import { orPaneNotFound } from "../../programs/pane.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { readBack } from "../../services/TmuxReads.ts"
import { defineTool } from "../define.ts"

/** A pane title: printable text. @category schemas */
const Title = Schema.String.annotate({ description: "the title" }).check(
  Schema.isMaxLength(256),
  Schema.makeFilter((title: string) =>
    // oxlint-disable-next-line no-control-regex -- control characters are what it refuses
    /[\u0000-\u001f\u007f]/u.test(title) ? "must not contain control characters" : true
  )
)

/** @category tools */
export const set_pane_title = defineTool(manifest.set_pane_title, {
  description: "Set a pane's title, stored literally; its program may change it.",
  input: Schema.Struct({ pane_id: PaneId, title: Title }),
  output: PaneInfo,
  run: (input) =>
    Effect.gen(function*() {
      const stdout = yield* (yield* TmuxChange).run([[
        "select-pane",
        "-t",
        input.pane_id,
        "-T",
        literalizeFormat(input.title)
      ], readBack.panes(input.pane_id)])
        .pipe(orPaneNotFound(input.pane_id))
      return yield* paneOf(input.pane_id, stdout)
    })
})
