/** send_keys: type text or a key into a pane's program. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { PaneId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { keysFields, sendTo, targetFields } from "../../programs/keys.ts"
import { idVariable } from "../../programs/variables.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const send_keys = defineTool(manifest.send_keys, {
  description: "Type text or one key (C-c, Enter, Up ...), then Enter unless enter is false. No wait, " +
    "no read: for output use run_shell_command; to wait after typing, see wait_for_text's since. Never type a " +
    "secret you were not given: ask the user.",
  input: Schema.Struct({ pane_id: PaneId, ...keysFields }),
  output: Schema.Struct({ pane_id: idVariable("pane_id"), ...targetFields }),
  run: (input) =>
    Effect.gen(function*() {
      return { pane_id: input.pane_id, ...(yield* sendTo(input.pane_id, input)) }
    })
})
