// Positive twin of fail/change-with-input.ts.
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { TmuxChange } from "../../../src/services/Tmux.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"

export const tool = defineTool({ ...manifest.rename_window, sinks: {} } as const, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: (_input) =>
    TmuxChange.use((tmux) => tmux.run([["wait-for", "-S", "c"]], { timeoutMs: 1000 })).pipe(Effect.as({}))
})
