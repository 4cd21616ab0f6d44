/** send_keys: type text or a key into a pane's program. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { defineTool } from "../define.ts"
import { keysFields, sendTo, targetFields } from "../keys.ts"
import { PaneId } from "../targets.ts"
import { stringVariable } from "../variables.ts"

/** @category tools */
export const send_keys = defineTool(manifest.send_keys, {
  description: "Type text, or one tmux key (C-c, Enter, Up, Escape, F5 ...), into a pane's foreground program, and " +
    "press Enter unless enter is false. It does not wait or read anything back: to run a shell command and get its " +
    "output and exit status use run_shell_command; to type several things in order use send_keys_batch. " +
    "Reports every pane the input reached: with synchronize-panes on, that is every pane of the window.",
  input: Schema.Struct({ pane_id: PaneId, ...keysFields }),
  output: Schema.Struct({ pane_id: stringVariable("pane_id"), ...targetFields }),
  run: (input) =>
    Effect.gen(function*() {
      return { pane_id: input.pane_id, ...(yield* sendTo(input.pane_id, input)) }
    })
})
