/** set_mouse_enabled: turn tmux's mouse support on or off. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"
import { optionTarget, optionTargetFields } from "./sessionOption.ts"

/** @category tools */
export const set_mouse_enabled = defineTool(manifest.set_mouse_enabled, {
  description: "Turn tmux's mouse option on or off, for a session or globally.",
  input: Schema.Struct({
    ...optionTargetFields,
    enabled: Schema.Boolean.annotate({ description: "on (true) or off" })
  }),
  output: Schema.Struct({
    session_id: Schema.NullOr(Schema.String).annotate({ description: "the session set, or null when set globally" }),
    mouse: Schema.Boolean.annotate({ description: "the mouse option afterwards" })
  }),
  run: (input) =>
    Effect.gen(function*() {
      const target = yield* optionTarget(input)
      yield* (yield* TmuxChange).run([["set-option", ...target.flags, "mouse", input.enabled ? "on" : "off"]])
      return { session_id: target.session_id, mouse: input.enabled }
    })
})
