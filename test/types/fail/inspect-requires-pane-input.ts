import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { PaneInput } from "../../../src/services/Tmux.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"

// An inspect tool whose program could type into a pane.
// expect-error: TS2345 an inspect tool may not require PaneInput (row list_sessions: effect observe, reach none)
export const typing = defineTool(manifest.list_sessions, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: (_input) => PaneInput.use((input) => input.run([["send-keys", "-t", "%0", "x"]])).pipe(Effect.as({}))
})
