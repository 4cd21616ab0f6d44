/** resize_window: set a window's size in cells. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { WindowInfo } from "../../programs/hierarchy.ts"
import { resolveWindow, windowTargetFields } from "../../programs/targets.ts"
import { ArgumentProblem } from "../../services/errors.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

const Cells = (what: string) =>
  Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10_000 })).annotate({ description: `${what} in cells` })

/** @category tools */
export const resize_window = defineTool(manifest.resize_window, {
  description: "Set a window's size in cells; it then stops following clients.",
  input: Schema.Struct({
    ...windowTargetFields,
    width: Schema.optionalKey(Cells("width")),
    height: Schema.optionalKey(Cells("height"))
  }),
  output: WindowInfo,
  run: (input) =>
    Effect.gen(function*() {
      if (input.width === undefined && input.height === undefined) {
        return yield* new ArgumentProblem({ detail: "give width, height, or both" })
      }
      const window = yield* resolveWindow(input)
      yield* (yield* TmuxChange).run([[
        "resize-window",
        "-t",
        window.window_id,
        ...(input.width === undefined ? [] : ["-x", String(input.width)]),
        ...(input.height === undefined ? [] : ["-y", String(input.height)])
      ]])
      return yield* resolveWindow({ window_id: window.window_id })
    })
})
