/** set_history_limit: how many lines of history new panes keep. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"
import { optionTarget, optionTargetFields } from "./sessionOption.ts"

/** @category tools */
export const set_history_limit = defineTool(manifest.set_history_limit, {
  description: "Set history-limit (lines of history a pane keeps), for a session or globally.",
  input: Schema.Struct({
    ...optionTargetFields,
    lines: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000 })).annotate({
      description: "lines of history"
    })
  }),
  output: Schema.Struct({
    session_id: Schema.NullOr(Schema.String).annotate({ description: "the session set, or null when set globally" }),
    history_limit: Schema.Int.annotate({ description: "the history-limit afterwards" })
  }),
  run: (input) =>
    Effect.gen(function*() {
      const target = yield* optionTarget(input)
      yield* (yield* TmuxChange).run([["set-option", ...target.flags, "history-limit", String(input.lines)]])
      return { session_id: target.session_id, history_limit: input.lines }
    })
})
