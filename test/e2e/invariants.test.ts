/**
 * The design's eleven invariants, checked over the running server's own `tools/list` for the full
 * selection (the manifest side of each is in test/unit/manifest.test.ts and test/unit/selection.test.ts;
 * behaviour behind them in the other e2e files, named per invariant below).
 *
 *  1. names one to one, hints explicit booleans, every tool titled ............ here
 *  2. inspect: readOnly, reach none, no executable or format sink ............. here + unit/manifest
 *  3. host_command_tools=0 (counted from the grammars), no socket parameters . here + unit/tmuxGrammar
 *  4. destructive/idempotent/openWorld rules; destructive false is tested ..... here + e2e/additive
 *  5. openers exact, the two mandatory lines ................................... here
 *  6. excluded tools absent and rejected, 16 combinations, order ............. e2e/surface, unit/selection
 *  7. batch rules .............................................................. e2e/manage-tools
 *  8. variable grammar, search bounds, namespaced paste buffers ............... e2e/manage-tools, e2e/pane-tools
 *  9. redaction in audit records and validation messages ...................... e2e/audit
 * 10. generated docs match, capabilities report the filtered surface .......... npm run check, e2e/first-contact
 * 11. copy lint ................................................................ npm run check, unit/copyClaims
 */
import { assert, describe, it } from "vitest"
import {
  capabilityMetaKey,
  mandatoryLines,
  manifest,
  openers,
  type ToolName,
  toolNames
} from "../../src/manifest/index.ts"
import { harness } from "../support/harness.ts"
import { connect, uiCapabilities } from "../support/mcp.ts"

const h = harness("invariants")

describe("invariants over tools/list", () => {
  it("holds for every advertised tool of the full selection", async () => {
    // A client that shows MCP Apps is offered every row, the pane view's own tool too.
    const world = h.world()
    const c = h.track(await connect(world, {}, [], uiCapabilities))
    const tools = (await c.client.listTools()).tools
    // 1
    assert.deepStrictEqual(tools.map((tool) => tool.name), [...toolNames])
    for (const tool of tools) {
      const row = manifest[tool.name as ToolName]
      const hints = tool.annotations ?? {}
      for (const hint of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
        assert.isBoolean(hints[hint], `${tool.name} ${hint}`)
      }
      assert.isString(tool.title, tool.name)
      // 2
      if (row.toolset === "inspect") {
        assert.isTrue(hints.readOnlyHint, tool.name)
        assert.strictEqual(
          (tool._meta?.[capabilityMetaKey] as { process_reach: string } | undefined)?.process_reach,
          "none"
        )
      }
      if (hints.readOnlyHint === true) assert.strictEqual(row.toolset, "inspect", tool.name)
      // 3
      const record = tool._meta?.[capabilityMetaKey] as { process_reach: string }
      const schemaText = JSON.stringify(tool.inputSchema)
      for (const key of ["\"socket\"", "\"socket_name\"", "\"socket_path\""]) {
        assert.notInclude(schemaText, key, tool.name)
      }
      // 4
      if (record.process_reach === "pane-input" || record.process_reach === "pane-command") {
        assert.deepStrictEqual(
          [hints.destructiveHint, hints.idempotentHint, hints.openWorldHint],
          [true, false, true],
          tool.name
        )
      }
      if (row.toolset === "teardown") {
        assert.deepStrictEqual([hints.destructiveHint, hints.openWorldHint], [true, false], tool.name)
      }
      if ((row.output as ReadonlyArray<string>).includes("terminal-content")) {
        assert.isTrue(hints.openWorldHint, tool.name)
      }
      if (hints.destructiveHint === false) {
        assert.isTrue(row.toolset === "inspect" || row.reach === "configured-process", tool.name)
      }
      // 5
      assert.isTrue(tool.description?.startsWith(`${openers[row.opener]} `), tool.name)
    }
    for (const [name, line] of Object.entries(mandatoryLines)) {
      assert.include(tools.find((tool) => tool.name === name)?.description, line, name)
    }
    assert.include(c.stderr(), "host_command_tools=0")
  })

  it("describes every input property and every output field of every tool, nested ones included", async () => {
    const c = await h.connect(h.world())
    const undescribed: Array<string> = []
    type Node = {
      readonly description?: string
      readonly properties?: Record<string, Node>
      readonly items?: Node
      readonly anyOf?: ReadonlyArray<Node>
      readonly $ref?: string
    }
    const walk = (tool: string, where: string, node: Node | undefined, defs: Record<string, Node>) => {
      if (node === undefined) return
      const resolved = node.$ref === undefined ? node : defs[node.$ref.split("/").at(-1)!]
      for (const branch of resolved?.anyOf ?? []) walk(tool, where, branch, defs)
      for (const [key, child] of Object.entries(resolved?.properties ?? {})) {
        const target = child.$ref === undefined ? child : defs[child.$ref.split("/").at(-1)!]
        if (child.description === undefined && target?.description === undefined) {
          undescribed.push(`${tool} ${where}${key}`)
        }
        walk(tool, `${where}${key}.`, child, defs)
      }
      if (resolved?.items !== undefined) walk(tool, `${where}[].`, resolved.items, defs)
    }
    for (const tool of (await c.client.listTools()).tools) {
      walk(
        tool.name,
        "",
        tool.inputSchema as Node,
        ((tool.inputSchema as { $defs?: Record<string, Node> }).$defs) ?? {}
      )
      walk(
        tool.name,
        "output ",
        tool.outputSchema as Node,
        ((tool.outputSchema as { $defs?: Record<string, Node> } | undefined)?.$defs) ?? {}
      )
    }
    assert.deepStrictEqual(undescribed, [])
  })
})
