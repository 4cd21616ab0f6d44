// Positive twin of fail/sinks-mismatch.ts.
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { defineTool } from "../../../src/tools/define.ts"

export const declared = defineTool(manifest.get_pane_info, {
  description: "x",
  input: Schema.Struct({ pane_id: Schema.String }),
  output: Schema.Struct({}),
  run: () => Effect.succeed({})
})
