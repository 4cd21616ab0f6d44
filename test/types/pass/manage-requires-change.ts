// Positive twin of fail/manage-requires-delete.ts.
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { TmuxChange } from "../../../src/services/Tmux.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"

export const renaming = defineTool({ ...manifest.rename_window, sinks: {} } as const, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: () => TmuxChange.use((tmux) => tmux.run([["rename-window", "-t", "@0", "--", "x"]])).pipe(Effect.as({}))
})
