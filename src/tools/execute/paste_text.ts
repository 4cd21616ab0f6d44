/** paste_text: paste text into a pane through a private tmux buffer. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { randomBytes } from "node:crypto"
import { manifest } from "../../manifest/index.ts"
import { PaneInput } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"
import { orPaneNotFound } from "../pane.ts"
import { PaneId } from "../targets.ts"
import { stringVariable } from "../variables.ts"

/** The prefix of this server's temporary buffers. */
export const bufferPrefix = "libtmux-mcp-paste-"

/** @category tools */
export const paste_text = defineTool(manifest.paste_text, {
  description: "Paste text into a pane's foreground program as one paste (bracketed paste when the program asked " +
    "for it, so editors and shells take it as pasted text rather than typed keys). It does not press Enter and does " +
    "not wait. The text goes through a tmux buffer private to this call, deleted when the paste succeeds or fails; " +
    "your own tmux buffers are never touched.",
  input: Schema.Struct({
    pane_id: PaneId,
    text: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(1_000_000)).annotate({ description: "the text (up to 1,000,000 characters)" }),
    bracketed: Schema.optionalKey(Schema.Boolean.annotate({ description: "use bracketed paste when the program enabled it (default true)" }))
  }),
  output: Schema.Struct({ pane_id: stringVariable("pane_id"), characters: Schema.Int.annotate({ description: "characters pasted" }) }),
  run: (input) =>
    Effect.gen(function*() {
      const tmux = yield* PaneInput
      const buffer = `${bufferPrefix}${randomBytes(8).toString("hex")}`
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
