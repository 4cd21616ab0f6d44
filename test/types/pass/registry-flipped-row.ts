// Positive twin of fail/registry-flipped-row.ts: the manifest's own row, claim for claim.
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../../src/manifest/index.ts"
import { defineTool, NoInput } from "../../../src/tools/define.ts"
import { defineRegistry, registry } from "../../../src/tools/index.ts"

const same = defineTool({ ...manifest.list_sessions, mayExposeSecrets: false } as const, {
  description: "x",
  input: NoInput,
  output: Schema.Struct({}),
  run: () => Effect.succeed({})
})
export const tools = defineRegistry({ ...registry, list_sessions: same })
