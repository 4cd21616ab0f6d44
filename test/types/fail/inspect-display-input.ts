import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { TmuxObserve } from "../../../src/services/Tmux.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"

// An inspect tool forwarding input into a pane with display-message -I.
export const tool = defineTool({ ...manifest.get_pane_info, sinks: {} } as const, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: (_input) =>
    // expect-error: TS2322 Type '"-I"' is not assignable to type '"-p"'
    TmuxObserve.use((tmux) => tmux.run([["display-message", "-I", "-t", "%0", "typed into the pane"]])).pipe(
      Effect.as({})
    )
})
