/** capture_pane: the text of a pane's screen or a range of its history. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { firstRowToRead, jsonLength, maxTextChars, tailBound } from "../../domain/bounds.ts"
import { PaneId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { boundFields, outputLimits, truncationFields } from "../../programs/outputBounds.ts"
import { orPaneNotFound } from "../../programs/pane.ts"
import { idVariable } from "../../programs/variables.ts"
import { ArgumentProblem, type ProgramError } from "../../services/errors.ts"
import { TmuxObserve } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

const Row = (what: string) =>
  Schema.Int.check(Schema.isBetween({ minimum: -1_000_000, maximum: 10_000 })).annotate({
    description: `${what} row (0: top of screen; negative: history, -1 newest)`
  })

/**
 * The most bytes one capture may read: well above what max_bytes keeps, so that a capture that
 * stops there already holds everything the bound keeps, except in pathological rows.
 */
const readLimit = (maxBytes: number): number => 8 * maxBytes + 1024 * 1024

/** The number of lines of a text, counted without splitting it. */
const countLines = (text: string): number => {
  if (text === "") return 0
  let count = 1
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++
  return count
}

/**
 * The text without the blank rows below the last written one. Rows keep their trailing spaces, as
 * run_shell_command's output does: only a row with nothing but spaces at the end is left out.
 */
const withoutBlankTail = (text: string): string => {
  let end = text.length
  while (end > 0 && /\s/u.test(text[end - 1]!)) end--
  if (end === 0) return ""
  const newline = text.indexOf("\n", end)
  return newline === -1 ? text : text.slice(0, newline)
}

/** @category tools */
export const capture_pane = defineTool(manifest.capture_pane, {
  description: "A pane's text: the screen, or rows start to end (tabs as spaces, trailing spaces kept). Keeps " +
    "the newest rows within max_lines/max_bytes, counting the rest. To follow output use capture_since.",
  input: Schema.Struct({
    pane_id: PaneId,
    start: Schema.optionalKey(Row("first")),
    end: Schema.optionalKey(Row("last")),
    escapes: Schema.optionalKey(Schema.Boolean.annotate({ description: "include ANSI escapes (default false)" })),
    join_wrapped: Schema.optionalKey(Schema.Boolean.annotate({ description: "join wrapped lines (default false)" })),
    ...boundFields
  }),
  output: Schema.Struct({
    pane_id: idVariable("pane_id"),
    content: Schema.String.annotate({
      description: "the rows' text, one line per row (per joined line with join_wrapped)"
    }),
    lines: Schema.Int.annotate({ description: "number of lines in content" }),
    ...truncationFields
  }),
  run: (input) =>
    Effect.gen(function*() {
      if (input.start !== undefined && input.end !== undefined && input.start > input.end) {
        return yield* new ArgumentProblem({ detail: "start must not be after end" })
      }
      const maxLines = input.max_lines ?? outputLimits.maxLines
      const maxBytes = input.max_bytes ?? outputLimits.maxBytes
      const tmux = yield* TmuxObserve
      // -N keeps the spaces a row was written with (-J keeps them too).
      const flags = [...(input.escapes === true ? ["-e"] : []), input.join_wrapped === true ? "-J" : "-N"]
      // Read only the rows the bounds can keep, not the whole history: maxLines rows above the screen
      // at first, fewer while the output is still over the read limit.
      const capture = (historyRows: number) => {
        const first = firstRowToRead(input.start, input.end, historyRows)
        const low = input.end === undefined ? input.start ?? 0 : Math.min(input.start ?? 0, input.end)
        if (first === low) {
          const range = [
            ...(input.start === undefined ? [] : ["-S", String(input.start)]),
            ...(input.end === undefined ? [] : ["-E", String(input.end)])
          ]
          return tmux.run([["capture-pane", "-p", "-t", input.pane_id, ...range, ...flags]], {
            maxOutputBytes: readLimit(maxBytes)
          }).pipe(
            Effect.map((stdout) => ({ stdout, skipped: 0 })),
            orPaneNotFound(input.pane_id)
          )
        }
        // The history size comes from the same invocation, so the count of rows left unread is exact.
        const last = input.end === undefined ? [] : ["-E", String(Math.max(input.start ?? 0, input.end))]
        return tmux.run([
          ["display-message", "-p", "-t", input.pane_id, "#{history_size}"],
          ["capture-pane", "-p", "-t", input.pane_id, "-S", String(first), ...last, ...flags]
        ], { maxOutputBytes: readLimit(maxBytes) }).pipe(
          Effect.map((stdout) => {
            const split = stdout.indexOf("\n")
            const historySize = Number.parseInt(stdout.slice(0, split), 10) || 0
            return { stdout: stdout.slice(split + 1), skipped: Math.max(0, first - Math.max(low, -historySize)) }
          }),
          orPaneNotFound(input.pane_id)
        )
      }
      type Capture = ReturnType<typeof capture>
      const read = (
        historyRows: number
      ): Effect.Effect<Effect.Success<Capture>, ProgramError, Effect.Services<Capture>> =>
        capture(historyRows).pipe(Effect.catchTag("TmuxOutputTooLarge", (error) =>
          historyRows > 1
            ? read(Math.floor(historyRows / 4) || 1)
            : Effect.fail(
              new ArgumentProblem({
                detail: `the screen rows asked for hold more than ${error.limitBytes} ` +
                  "bytes; ask for fewer rows with start and end"
              })
            )))
      const { stdout, skipped } = yield* read(maxLines)
      const text = withoutBlankTail(stdout)
      const lines = countLines(text)
      // Everything fits (the common case): no need to split and join the whole capture.
      const size = Buffer.byteLength(text, "utf8")
      if (lines <= maxLines && size <= maxBytes && (size * 6 <= maxTextChars || jsonLength(text) <= maxTextChars)) {
        return { pane_id: input.pane_id, content: text, lines, truncated_lines: skipped, truncated_bytes: 0 }
      }
      const bounded = tailBound(text.split("\n"), maxLines, maxBytes)
      return {
        pane_id: input.pane_id,
        content: bounded.lines.join("\n"),
        lines: bounded.lines.length,
        truncated_lines: skipped + bounded.truncatedLines,
        truncated_bytes: bounded.truncatedBytes
      }
    })
})
