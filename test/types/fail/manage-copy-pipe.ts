import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { TmuxChange } from "../../../src/services/Tmux.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"

// A manage tool piping copy mode's selection to a shell command.
export const tool = defineTool({ ...manifest.rename_window, sinks: {} } as const, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: (_input) =>
    // expect-error: TS2322 Type '"copy-pipe"' is not assignable
    TmuxChange.use((tmux) => tmux.run([["send-keys", "-X", "-t", "%0", "copy-pipe"]])).pipe(Effect.as({}))
})
