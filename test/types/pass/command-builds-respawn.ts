// Positive twin of fail/command-builds-respawn.ts.
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { PaneCommand } from "../../../src/services/Tmux.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"

export const tool = defineTool({ ...manifest.run_shell_command, sinks: {} } as const, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: (_input) =>
    PaneCommand.use((tmux) => tmux.run([["set-option", "-pu", "-t", "%0", "@lmcp_claim"]])).pipe(Effect.as({}))
})
