import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { TmuxChange } from "../../../src/services/Tmux.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"

// Standard input for a change: only an authority with load-buffer - takes it.
export const tool = defineTool({ ...manifest.rename_window, sinks: {} } as const, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: (_input) =>
    // expect-error: TS2353 'input' does not exist
    TmuxChange.use((tmux) => tmux.run([["wait-for", "-S", "c"]], { input: "typed" })).pipe(Effect.as({}))
})
