/** move_window: move a window to another index or session. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { SessionId, WindowId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { oneAtATime } from "../../programs/guard.ts"
import { WindowInfo } from "../../programs/hierarchy.ts"
import { Name, resolveSession, resolveWindow } from "../../programs/targets.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const move_window = defineTool(manifest.move_window, {
  description:
    "Move a window to another session and/or a free index (default: the next free one, so a repeat moves it again).",
  input: Schema.Struct({
    window_id: WindowId,
    to_session_id: Schema.optionalKey(SessionId),
    to_session_name: Schema.optionalKey(Name("exact name")),
    to_index: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100_000 })).annotate({
        description: "destination index (must be free)"
      })
    )
  }),
  output: WindowInfo,
  run: (input) =>
    oneAtATime(Effect.gen(function*() {
      const window = yield* resolveWindow({ window_id: input.window_id })
      const destination = input.to_session_id === undefined && input.to_session_name === undefined
        ? window.session_id
        : (yield* resolveSession({
          ...(input.to_session_id === undefined ? {} : { session_id: input.to_session_id }),
          ...(input.to_session_name === undefined ? {} : { session_name: input.to_session_name })
        })).session_id
      yield* (yield* TmuxChange).run([[
        "move-window",
        "-d",
        "-s",
        window.window_id,
        "-t",
        `${destination}:${input.to_index ?? ""}`
      ]])
      return yield* resolveWindow({ window_id: window.window_id })
    }))
})
