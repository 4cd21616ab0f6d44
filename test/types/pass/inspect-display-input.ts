// Positive twin of fail/inspect-display-input.ts.
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { TmuxObserve } from "../../../src/services/Tmux.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"

export const tool = defineTool({ ...manifest.get_pane_info, sinks: {} } as const, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: (_input) =>
    TmuxObserve.use((tmux) => tmux.run([["display-message", "-p", "-t", "%0", "#{pane_id}"]])).pipe(Effect.as({}))
})
