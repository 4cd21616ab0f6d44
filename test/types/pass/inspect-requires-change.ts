// Positive twin of fail/inspect-requires-change.ts: the same program on a manage row.
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { TmuxChange } from "../../../src/services/Tmux.ts"
import { defineTool } from "../../../src/tools/define.ts"

export const changing = defineTool(manifest.exit_copy_mode, {
  description: "x",
  input: Schema.Struct({ pane_id: Schema.String }),
  output: Schema.Struct({}),
  run: (input) => TmuxChange.use((tmux) => tmux.run([["select-pane", "-t", input.pane_id]])).pipe(Effect.as({}))
})
