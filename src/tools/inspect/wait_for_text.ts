/** wait_for_text: wait inside the server until new output in a pane matches. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { tailBound } from "../../domain/bounds.ts"
import { PaneId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { usually } from "../../programs/usual.ts"
import { idVariable } from "../../programs/variables.ts"
import { effectiveTimeout, effectiveTimeoutField, reportedTimeout, timeoutField } from "../../programs/waiting.ts"
import { waitForText } from "../../programs/waitText.ts"
import { maxPatternLength, Regex } from "../../services/Regex.ts"
import { defineTool } from "../define.ts"
import { verifyCursor } from "./capture_since.ts"

/** @category tools */
export const wait_for_text = defineTool(manifest.wait_for_text, {
  // Output a host's pane writes while the hub reconnects would be missed: a lost wait is not sent again.
  hub: { resend: false },
  description: "Wait for new output in a pane to match one of patterns (or any new output without them); " +
    "returns the match and its line. Output written before the call never counts: to wait " +
    "race-free after typing, call capture_since first and pass its cursor as since. Lines match " +
    "with the rows the pane wrapped them over joined (as capture_pane's join_wrapped shows them), " +
    "trailing spaces removed; a line counts when any of its rows is new. Nothing matches on the " +
    "alternate screen.",
  input: Schema.Struct({
    pane_id: PaneId,
    patterns: Schema.optionalKey(
      Schema.Array(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(maxPatternLength))).check(
        Schema.isMinLength(1),
        Schema.isMaxLength(16)
      ).annotate({
        description: "texts or RE2 patterns; the first that matches wins. Omit for any new output"
      })
    ),
    regex: Schema.optionalKey(Schema.Boolean.annotate({ description: "RE2 syntax (default false: literal)" })),
    match_case: Schema.optionalKey(Schema.Boolean.annotate({ description: "case-sensitive (default false)" })),
    since: Schema.optionalKey(
      Schema.String.check(Schema.isMaxLength(65_536)).annotate({
        description: "a capture_since cursor: output after it counts, even before this call"
      })
    ),
    timeout: timeoutField
  }),
  output: Schema.Struct({
    pane_id: idVariable("pane_id"),
    outcome: Schema.Literals(["matched", "any_output", "timeout"]).annotate({ description: "what ended the wait" }),
    matched_index: usually(
      Schema.NullOr(Schema.Int).annotate({ description: "index in patterns of the pattern that matched" }),
      null,
      "nothing matched"
    ),
    matched_line: usually(
      Schema.NullOr(Schema.String).annotate({ description: "the line that matched" }),
      null,
      "nothing matched"
    ),
    new_lines: usually(
      Schema.Array(Schema.String).annotate({
        description: "the newest lines written since the call started (at most 20)"
      }),
      [],
      "none was written"
    ),
    alternate_screen: usually(
      Schema.Boolean.annotate({ description: "true: a full-screen program had the alternate screen at some point" }),
      false,
      "the normal screen throughout"
    ),
    elapsed_seconds: Schema.Finite.annotate({ description: "seconds waited" }),
    effective_timeout: effectiveTimeoutField
  }),
  run: (input) =>
    Effect.gen(function*() {
      const regex = yield* Regex
      const options = { regex: input.regex ?? false, matchCase: input.match_case ?? false }
      const matcher = input.patterns === undefined ? undefined : yield* regex.compile(input.patterns, options)
      const timeout = yield* effectiveTimeout(input.timeout)
      const cursor = input.since === undefined ? undefined : yield* verifyCursor(input.since, input.pane_id)
      const since = cursor === undefined
        ? undefined
        : { pid: cursor.pid, anchor: cursor.anchor, hashes: [cursor.anchorHash, ...cursor.belowHashes] }
      const result = yield* waitForText(input.pane_id, matcher, timeout * 1000, since)
      return {
        pane_id: input.pane_id,
        outcome: result.outcome,
        matched_index: result.matchedIndex ?? null,
        matched_line: result.matchedLine ?? null,
        new_lines: [...tailBound(result.newLines, 20, 4000).lines],
        alternate_screen: result.alternateScreenSeen,
        elapsed_seconds: result.elapsedMs / 1000,
        ...reportedTimeout(input.timeout, timeout)
      }
    })
})
