import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { TmuxChange } from "../../../src/services/Tmux.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"

// A manage tool setting an option whose value tmux runs (#(…)) once a client draws it.
export const tool = defineTool({ ...manifest.set_mouse_enabled, sinks: {} } as const, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: (_input) =>
    // expect-error: TS2322 Type '"status-right"' is not assignable
    TmuxChange.use((tmux) => tmux.run([["set-option", "-g", "status-right", "#(touch /tmp/x)"]])).pipe(Effect.as({}))
})
