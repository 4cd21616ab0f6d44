import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"
import { defineRegistry, registry } from "../../../src/tools/index.ts"

// A valid row that differs from the manifest's in one claim: list_sessions saying it may expose secrets.
const flipped = defineTool({ ...manifest.list_sessions, mayExposeSecrets: true } as const, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: () => Effect.succeed({})
})
// expect-error: TS2375 Types of property 'mayExposeSecrets' are incompatible
export const tools = defineRegistry({ ...registry, list_sessions: flipped })
