import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"
import { defineRegistry, registry } from "../../../src/tools/index.ts"

// A tool whose capability tag differs from its manifest row.
// expect-error: TS2345 Type '"manage"' is not assignable to type '"inspect"'
const relabelled = defineTool({ ...manifest.list_sessions, toolset: "manage" } as const, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: () => Effect.succeed({})
})
// expect-error: TS2375 Types of property 'toolset' are incompatible
export const tools = defineRegistry({ ...registry, list_sessions: relabelled })
