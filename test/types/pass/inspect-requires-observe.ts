// Positive twin of fail/inspect-requires-pane-input.ts.
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { TmuxObserve } from "../../../src/services/Tmux.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"

export const reading = defineTool(manifest.list_sessions, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: () => TmuxObserve.use((tmux) => tmux.run([["list-sessions"]])).pipe(Effect.as({}))
})
