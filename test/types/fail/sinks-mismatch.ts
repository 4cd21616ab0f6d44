import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { defineTool } from "../../../src/tools/define.ts"

// An input field the row's sink column does not describe.
// expect-error: TS2345 the row's sink column must name exactly the input's fields
export const undeclared = defineTool(manifest.get_pane_info, {
  description: "x",
  input: Schema.Struct({ pane_id: Schema.String, format: Schema.String }),
  output: Schema.Struct({}),
  run: () => Effect.succeed({})
})
