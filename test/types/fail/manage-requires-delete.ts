import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { TmuxDelete } from "../../../src/services/Tmux.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"

// A manage tool whose program could delete.
// expect-error: TS2345 a manage tool may not require TmuxDelete (row rename_window: effect change, reach none)
export const deleting = defineTool({ ...manifest.rename_window, sinks: {} } as const, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: (_input) => TmuxDelete.use((tmux) => tmux.run([["kill-window", "-t", "@0"]])).pipe(Effect.as({}))
})
