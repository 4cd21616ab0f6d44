/** set_synchronize_panes: make input to one pane of a window go to all of them, or stop it. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { listPaneRows } from "../../programs/hierarchy.ts"
import { resolveWindow, windowTargetFields } from "../../programs/targets.ts"
import { idVariable } from "../../programs/variables.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const set_synchronize_panes = defineTool(manifest.set_synchronize_panes, {
  description: "Turn a window's synchronize-panes on or off.",
  input: Schema.Struct({
    ...windowTargetFields,
    enabled: Schema.Boolean.annotate({ description: "on (true) or off" })
  }),
  output: Schema.Struct({
    window_id: idVariable("window_id"),
    synchronize_panes: Schema.Boolean.annotate({ description: "the option afterwards" }),
    panes: Schema.Array(Schema.String).annotate({ description: "the window's pane IDs" })
  }),
  run: (input) =>
    Effect.gen(function*() {
      const window = yield* resolveWindow(input)
      yield* (yield* TmuxChange).run([[
        "set-option",
        "-w",
        "-t",
        window.window_id,
        "synchronize-panes",
        input.enabled ? "on" : "off"
      ]])
      const panes = yield* listPaneRows({ windowId: window.window_id })
      return { window_id: window.window_id, synchronize_panes: input.enabled, panes: panes.map((pane) => pane.pane_id) }
    })
})
