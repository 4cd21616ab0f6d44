// expect-error: this row has no sink column yet
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"

// A tool defined before its row gains a sink column.
export const early = defineTool(manifest.show_option, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: () => Effect.succeed({})
})
