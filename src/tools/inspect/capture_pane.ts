/** capture_pane: the text of a pane's screen or a range of its history. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { tailBound } from "../../domain/bounds.ts"
import { manifest } from "../../manifest/index.ts"
import { InputInvalid } from "../../services/errors.ts"
import { TmuxObserve } from "../../services/Tmux.ts"
import { boundFields, outputLimits, truncationFields } from "../bounds.ts"
import { defineTool } from "../define.ts"
import { capturedRows, orPaneNotFound } from "../pane.ts"
import { PaneId } from "../targets.ts"

const Row = (what: string) =>
  Schema.Int.check(Schema.isBetween({ minimum: -1_000_000, maximum: 10_000 })).annotate({
    description: `${what} row: 0 is the first visible row, negative rows reach into history (-1 is the newest history row)`
  })

/** The number of lines of a text, counted without splitting it. */
const countLines = (text: string): number => {
  if (text === "") return 0
  let count = 1
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++
  return count
}

/** @category tools */
export const capture_pane = defineTool(manifest.capture_pane, {
  description: "Return the text of a pane: the visible screen, or rows from start to end (negative rows are history). " +
    "Colours and attributes come as ANSI escapes only when escapes is true; wrapped lines are joined only when " +
    "join_wrapped is true. The newest rows are kept under max_lines/max_bytes and what was dropped is counted. " +
    "To follow new output across calls use capture_since; to wait for text use wait_for_text. Blank rows below the " +
    "last written row are left out.",
  input: Schema.Struct({
    pane_id: PaneId,
    start: Schema.optionalKey(Row("first")),
    end: Schema.optionalKey(Row("last")),
    escapes: Schema.optionalKey(Schema.Boolean.annotate({ description: "include ANSI colour and attribute escapes (default false)" })),
    join_wrapped: Schema.optionalKey(Schema.Boolean.annotate({ description: "join lines the terminal wrapped (default false)" })),
    ...boundFields
  }),
  output: Schema.Struct({ pane_id: Schema.String, content: Schema.String, lines: Schema.Int, ...truncationFields }),
  run: (input) =>
    Effect.gen(function*() {
      if (input.start !== undefined && input.end !== undefined && input.start > input.end) {
        return yield* new InputInvalid({ tool: "capture_pane", detail: "start must not be after end" })
      }
      const tmux = yield* TmuxObserve
      const stdout = yield* tmux.run([[
        "capture-pane",
        "-p",
        "-t",
        input.pane_id,
        ...(input.start === undefined ? [] : ["-S", String(input.start)]),
        ...(input.end === undefined ? [] : ["-E", String(input.end)]),
        ...(input.escapes === true ? ["-e"] : []),
        ...(input.join_wrapped === true ? ["-J"] : [])
      ]]).pipe(orPaneNotFound(input.pane_id))
      const maxLines = input.max_lines ?? outputLimits.maxLines
      const maxBytes = input.max_bytes ?? outputLimits.maxBytes
      const text = stdout.replace(/\s+$/u, "")
      const lines = countLines(text)
      // Everything fits (the common case): no need to split and join the whole capture.
      if (lines <= maxLines && Buffer.byteLength(text, "utf8") <= maxBytes) {
        return { pane_id: input.pane_id, content: text, lines, truncated_lines: 0, truncated_bytes: 0 }
      }
      const bounded = tailBound(capturedRows(stdout), maxLines, maxBytes)
      return {
        pane_id: input.pane_id,
        content: bounded.lines.join("\n"),
        lines: bounded.lines.length,
        truncated_lines: bounded.truncatedLines,
        truncated_bytes: bounded.truncatedBytes
      }
    })
})
