import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { PaneRespawn } from "../../../src/services/Tmux.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"

// A run (change, pane-command) requiring the service that replaces a pane's process: a delete.
// expect-error: TS2345 may not require PaneRespawn (row run_shell_command: effect change, reach pane-command)
export const tool = defineTool({ ...manifest.run_shell_command, sinks: {} } as const, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: (_input) => PaneRespawn.use((tmux) => tmux.run([["respawn-pane", "-k", "-t", "%0"]])).pipe(Effect.as({}))
})
