/** rename_window: give a window a new, literal name. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { literalizeFormat } from "../../domain/names.ts"
import { manifest } from "../../manifest/index.ts"
import { WindowInfo } from "../../programs/hierarchy.ts"
import { Name, resolveWindow, windowTargetFields } from "../../programs/targets.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const rename_window = defineTool(manifest.rename_window, {
  description: "Rename a window, stored literally; its automatic renaming stops.",
  input: Schema.Struct({ ...windowTargetFields, new_name: Name("the new window name") }),
  output: WindowInfo,
  run: (input) =>
    Effect.gen(function*() {
      const window = yield* resolveWindow(input)
      yield* (yield* TmuxChange).run([[
        "rename-window",
        "-t",
        window.window_id,
        "--",
        literalizeFormat(input.new_name)
      ]])
      return yield* resolveWindow({ window_id: window.window_id })
    })
})
