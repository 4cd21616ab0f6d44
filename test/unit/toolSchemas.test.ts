import { describe, expect, it } from "vitest"
import { toolEntry } from "../../src/layers/McpServer.ts"
import { advertisedSchemas } from "../../src/layers/toolSchemas.generated.ts"
import { toolNames } from "../../src/manifest/index.ts"
import { definitionOf } from "../../src/tools/index.ts"

describe("schemas converted at build time", () => {
  it("advertise exactly what converting the tool definitions at startup would (else run `npm run build`)", () => {
    expect(Object.keys(advertisedSchemas)).toEqual([...toolNames])
    for (const name of toolNames) {
      const definition = definitionOf(name)
      expect(JSON.stringify(toolEntry(definition, ["list_sessions"], advertisedSchemas)), name).toBe(
        JSON.stringify(toolEntry(definition, ["list_sessions"]))
      )
    }
  })
})
