// Positive twin of fail/command-requires-respawn.ts: respawn_pane's row (change+delete, pane-command).
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { PaneRespawn } from "../../../src/services/Tmux.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"

export const tool = defineTool({ ...manifest.respawn_pane, sinks: {} } as const, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: (_input) => PaneRespawn.use((tmux) => tmux.run([["respawn-pane", "-k", "-t", "%0"]])).pipe(Effect.as({}))
})
