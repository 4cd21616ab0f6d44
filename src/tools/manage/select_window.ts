/** select_window: make a window its session's current window. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { listWindowRows, WindowInfo } from "../../programs/hierarchy.ts"
import { resolveSession, resolveWindow, windowTargetFields } from "../../programs/targets.ts"
import { ArgumentProblem } from "../../services/errors.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

const moves = { next: "next-window", previous: "previous-window", last: "last-window" } as const

/** @category tools */
export const select_window = defineTool(manifest.select_window, {
  description: "Make a window its session's current one, by target or direction (next/previous move on each call).",
  input: Schema.Struct({
    ...windowTargetFields,
    direction: Schema.optionalKey(
      Schema.Literals(["next", "previous", "last"]).annotate({ description: "move within the session instead" })
    )
  }),
  output: WindowInfo,
  run: (input) =>
    Effect.gen(function*() {
      const tmux = yield* TmuxChange
      let sessionId: string
      if (input.direction !== undefined) {
        if (input.window_id !== undefined || input.window_index !== undefined) {
          return yield* new ArgumentProblem({ detail: "give direction with a session, or a window, not both" })
        }
        sessionId = (yield* resolveSession(input)).session_id
        yield* tmux.run([[moves[input.direction], "-t", sessionId]])
      } else {
        const window = yield* resolveWindow(input)
        sessionId = window.session_id
        yield* tmux.run([["select-window", "-t", window.window_id]])
      }
      const windows = yield* listWindowRows(sessionId)
      return windows.find((window) => window.window_active)!
    })
})
