import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { fullSelectionEntries } from "../../scripts/tool-list.ts"
import { advertisedSchemas } from "../../src/generated/toolSchemas.ts"
import { toolNames } from "../../src/manifest/index.ts"
import { definitionOf } from "../../src/tools/index.ts"
import { advertisedSchema, toolEntry } from "../../src/wire/McpServer.ts"

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

/** The combinators at the top of an input schema, which some MCP clients refuse. */
const topLevelCombinators = (schema: Record<string, unknown>): Array<string> =>
  ["anyOf", "oneOf", "allOf"].filter((key) => key in schema)

describe("input schemas every client accepts", () => {
  // Some MCP clients reject a tool whose input schema has anyOf, oneOf or allOf at its top level
  // (they require a plain `type: "object"` with properties, and drop or refuse the tool otherwise):
  // alternatives between parameters are checked by the server and said in the description.
  it("no tool's input schema has a top-level anyOf, oneOf or allOf, as listed or specialized", () => {
    const listed = fullSelectionEntries().map((tool) => [tool.name, tool.inputSchema] as const)
    const built = toolNames.map((name) => [name, advertisedSchemas[name]!.inputSchema] as const)
    const found = [...listed, ...built].flatMap(([name, schema]) =>
      topLevelCombinators(schema).map((key) => `${name}: ${key}`)
    )
    expect(found).toEqual([])
    for (const [name, schema] of listed) expect(schema.type, name).toBe("object")
  })

  it("finds a top-level union of parameter sets", () => {
    const union = Schema.Union([Schema.Struct({ pane_id: Schema.String }), Schema.Struct({ session: Schema.String })])
    expect(topLevelCombinators(advertisedSchema(union))).toEqual(["anyOf"])
  })
})
