/** paste_text: paste text into a pane through a private tmux buffer. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { randomBytes } from "node:crypto"
import { PaneId } from "../../domain/ids.ts"
import { pasteBufferName } from "../../domain/protocolNames.ts"
import { manifest } from "../../manifest/index.ts"
import { thisTag } from "../../platform/thisInstance.ts"
import { orPaneNotFound } from "../../programs/pane.ts"
import { idVariable } from "../../programs/variables.ts"
import { PaneInput } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const paste_text = defineTool(manifest.paste_text, {
  description: "Paste text as one paste, without Enter or waiting.",
  input: Schema.Struct({
    pane_id: PaneId,
    text: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(1_000_000)).annotate({
      description: "the text"
    }),
    bracketed: Schema.optionalKey(
      Schema.Boolean.annotate({ description: "bracketed paste if the program enabled it (default true)" })
    )
  }),
  output: Schema.Struct({
    pane_id: idVariable("pane_id"),
    characters: Schema.Int.annotate({ description: "characters pasted" })
  }),
  run: (input) =>
    Effect.gen(function*() {
      const tmux = yield* PaneInput
      const buffer = pasteBufferName(thisTag, randomBytes(8).toString("hex"))
      yield* tmux.run(
        [
          ["load-buffer", "-b", buffer, "-"],
          ["paste-buffer", "-d", ...(input.bracketed === false ? [] : ["-p"]), "-b", buffer, "-t", input.pane_id]
        ],
        { input: input.text }
      ).pipe(
        Effect.tapError(() => tmux.run([["delete-buffer", "-b", buffer]]).pipe(Effect.ignore)),
        orPaneNotFound(input.pane_id)
      )
      return { pane_id: input.pane_id, characters: input.text.length }
    })
})
