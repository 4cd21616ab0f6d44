import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { TmuxChange } from "../../../src/services/Tmux.ts"
import { defineTool } from "../../../src/tools/define.ts"

// An inspect tool whose program could change tmux state, its run typed from the input.
// expect-error: TS2345 an inspect tool may not require TmuxChange (row get_pane_info: effect observe, reach none)
export const changing = defineTool(manifest.get_pane_info, {
  description: "x",
  input: Schema.Struct({ pane_id: Schema.String }),
  output: Schema.Struct({}),
  run: (input) => TmuxChange.use((tmux) => tmux.run([["select-pane", "-t", input.pane_id]])).pipe(Effect.as({}))
})
