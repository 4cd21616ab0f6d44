import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { PaneCommand } from "../../../src/services/Tmux.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"

// A run's program replacing the pane's process through PaneCommand: respawn-pane is PaneRespawn's.
export const tool = defineTool({ ...manifest.run_shell_command, sinks: {} } as const, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: (_input) =>
    // expect-error: TS2322 Type '"respawn-pane"' is not assignable
    PaneCommand.use((tmux) => tmux.run([["respawn-pane", "-k", "-t", "%0"]])).pipe(Effect.as({}))
})
