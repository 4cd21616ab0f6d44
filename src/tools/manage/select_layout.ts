/** select_layout: arrange a window's panes in one of tmux's layouts. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { WindowInfo } from "../../programs/hierarchy.ts"
import { resolveWindow, windowTargetFields } from "../../programs/targets.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const select_layout = defineTool(manifest.select_layout, {
  description: "Arrange a window's panes in a preset layout; contents and processes stay.",
  input: Schema.Struct({
    ...windowTargetFields,
    layout: Schema.Literals(["even-horizontal", "even-vertical", "main-horizontal", "main-vertical", "tiled"]).annotate(
      { description: "one of tmux's preset layouts" }
    )
  }),
  output: WindowInfo,
  run: (input) =>
    Effect.gen(function*() {
      const window = yield* resolveWindow(input)
      yield* (yield* TmuxChange).run([["select-layout", "-t", window.window_id, input.layout]])
      return yield* resolveWindow({ window_id: window.window_id })
    })
})
