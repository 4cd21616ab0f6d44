import { describe, expect, it } from "vitest"
import { advertisedSchemas } from "../../src/generated/toolSchemas.ts"
import { toolNames } from "../../src/manifest/index.ts"
import { definitionOf } from "../../src/tools/index.ts"
import { toolEntry } from "../../src/wire/McpServer.ts"

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
