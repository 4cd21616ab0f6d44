// Positive twin of fail/manage-copy-pipe.ts.
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { TmuxChange } from "../../../src/services/Tmux.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"

export const tool = defineTool({ ...manifest.rename_window, sinks: {} } as const, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: (_input) => TmuxChange.use((tmux) => tmux.run([["send-keys", "-X", "-t", "%0", "cancel"]])).pipe(Effect.as({}))
})
