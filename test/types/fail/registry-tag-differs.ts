// expect-error: Type '"manage"' is not assignable to type '"inspect"'
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"
import { defineRegistry, registry } from "../../../src/tools/index.ts"

// A tool whose capability tag differs from its manifest row.
const relabelled = defineTool({ ...manifest.list_sessions, toolset: "manage" } as const, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: () => Effect.succeed({})
})
export const tools = defineRegistry({ ...registry, list_sessions: relabelled })
