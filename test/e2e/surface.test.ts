/**
 * The advertised surface through the SDK's real client: selection, defaults, annotations, openers,
 * schemas, and the JSON-RPC error for a tool outside the selection. The default configuration's
 * server is the bin, over stdio; the other selections are built in process (src/serving.ts), by
 * the same startup.
 */
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js"
import type { JsonSchemaType } from "@modelcontextprotocol/sdk/validation/types.js"
import { existsSync } from "node:fs"
import { assert, describe, it } from "vitest"
import { recordPair } from "../../src/domain/quote.ts"
import { capabilityMetaKey, manifest, modelToolNames, openers, type ToolName } from "../../src/manifest/index.ts"
import { registeredNames } from "../../src/tools/index.ts"
import { harness, sharedServer } from "../support/harness.ts"
import { call, type Connected, textOf } from "../support/mcp.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const built: ReadonlyArray<string> = modelToolNames.filter((name) => registeredNames.has(name))
const inToolset = (toolset: string) => built.filter((name) => manifest[name as ToolName].toolset === toolset)

const h = harness("surface", { inProcess: true })
// The tests of the default configuration read one server's surface; the others start their own.
const defaults = sharedServer("surface", () => ({}))
let world: TmuxWorld

const open = async (env: Record<string, string | undefined> = {}, args: ReadonlyArray<string> = []) => {
  if (Object.keys(env).length === 0 && args.length === 0) {
    const started = defaults.started()
    world = started.world
    return started.c
  }
  world = h.world()
  return h.connect(world, env, args)
}

const names = async (c: Connected) => (await c.client.listTools()).tools.map((tool) => tool.name)

describe("tools/list", () => {
  it("offers all 47 tools of the manifest by default on a new dedicated server, in manifest order", async () => {
    const c = await open()
    assert.deepStrictEqual(await names(c), [...modelToolNames])
    assert.strictEqual(modelToolNames.length, 47)
  })

  // All sixteen combinations are resolved in test/unit/selection.test.ts; these two carry each
  // toolset once present and once absent through the server's startup to tools/list.
  it("offers exactly the chosen toolsets' tools, each toolset once chosen and once not", async () => {
    for (const chosen of [["inspect", "execute"], ["manage", "teardown"]]) {
      const c = await open({ LIBTMUX_TOOLSETS: chosen.join(",") })
      assert.deepStrictEqual(
        await names(c),
        built.filter((name) => chosen.includes(manifest[name as ToolName].toolset)),
        chosen.join(",")
      )
    }
  })

  it("describes every tool with a title, four explicit hints, its opener and its capability record", async () => {
    const c = await open()
    for (const tool of (await c.client.listTools()).tools) {
      const row = manifest[tool.name as ToolName]
      assert.strictEqual(tool.title, row.title)
      assert.deepStrictEqual(tool.annotations, {
        title: row.title,
        readOnlyHint: row.hints.readOnly,
        destructiveHint: row.hints.destructive,
        idempotentHint: row.hints.idempotent,
        openWorldHint: row.hints.openWorld
      })
      assert.isTrue(tool.description?.startsWith(openers[row.opener]), tool.name)
      const record = tool._meta?.[capabilityMetaKey] as Record<string, unknown>
      assert.strictEqual(record.toolset, row.toolset)
      assert.strictEqual(record.process_reach, row.reach)
    }
  })

  it(
    "advertises input and output schemas that the SDK's own validator " +
      "compiles; the server refuses unknown properties, naming the valid ones",
    async () => {
      const c = await open()
      const validator = new AjvJsonSchemaValidator()
      for (const tool of (await c.client.listTools()).tools) {
        assert.strictEqual(tool.inputSchema.type, "object")
        // additionalProperties: false is left out of what a model reads (issue 12's budget): the server enforces it.
        validator.getValidator(tool.inputSchema as JsonSchemaType)
        assert.isDefined(tool.outputSchema, tool.name)
        validator.getValidator(tool.outputSchema as JsonSchemaType)
        for (const key of ["socket", "socket_name", "socket_path"]) {
          assert.notProperty(tool.inputSchema.properties ?? {}, key, tool.name)
        }
      }
      const surprise = await call(c, "capture_pane", { pane_id: "%0", surprise: 1 })
      assert.isTrue(surprise.isError)
      assert.include(textOf(surprise), "Unknown property")
      assert.include(textOf(surprise), "valid properties: pane_id")
    }
  )

  it(
    "offers only inspect tools with LIBTMUX_TOOLSETS=inspect, and refuses " +
      "a call to an unselected tool as a JSON-RPC error that acts on nothing",
    async () => {
      const c = await open({ LIBTMUX_TOOLSETS: "inspect" })
      assert.deepStrictEqual(await names(c), built.filter((name) => manifest[name as ToolName].toolset === "inspect"))
      const error = await call(c, "create_session", { session_name: "nope" }).then(() => undefined, (e: unknown) => e)
      assert.instanceOf(error, McpError)
      assert.strictEqual((error as McpError).code, -32602)
      assert.include((error as McpError).message, "not in this server's selection")
      assert.isFalse(existsSync(world.socketPath("libtmux-mcp")))
    }
  )

  it("names the wait ceiling this server applies in every waiting tool's timeout", async () => {
    const c = await open({ LIBTMUX_MCP_WAIT_MAX_SECONDS: "12" })
    const timeouts = (await c.client.listTools()).tools
      .filter((tool) => tool.inputSchema.properties?.timeout !== undefined)
      .map((tool) => [tool.name, (tool.inputSchema.properties!.timeout as { description?: string }).description])
    assert.deepStrictEqual(
      timeouts.sort(),
      ["run_shell_command", "wait_for_channel", "wait_for_text"].map((name) => [
        name,
        "seconds (default 30; at most 12 on this server)"
      ])
    )
  })

  it("offers exactly the named tools when LIBTMUX_TOOLSETS is empty", async () => {
    const c = await open({ LIBTMUX_TOOLSETS: "", LIBTMUX_TOOLS: "list_windows,list_sessions" })
    assert.deepStrictEqual(await names(c), ["list_sessions", "list_windows"])
  })

  it("applies exclusions last, even over an explicit inclusion", async () => {
    const c = await open({
      LIBTMUX_TOOLSETS: "inspect",
      LIBTMUX_TOOLS: "kill_session",
      LIBTMUX_EXCLUDE_TOOLS: "kill_session,list_panes"
    })
    assert.deepStrictEqual(await names(c), inToolset("inspect").filter((name) => name !== "list_panes"))
  })

  it("lets a flag beat its variable", async () => {
    const c = await open({ LIBTMUX_TOOLSETS: "inspect" }, ["--toolsets", "teardown"])
    assert.deepStrictEqual(await names(c), inToolset("teardown"))
  })

  it("rejects a guessed unknown tool name with a JSON-RPC error", async () => {
    const c = await open()
    const error = await call(c, "kill_server").then(() => undefined, (e: unknown) => e)
    assert.instanceOf(error, McpError)
    assert.strictEqual((error as McpError).code, -32602)
  })
})

describe("default toolsets", () => {
  it("omits teardown when the dedicated socket already has a server of unknown provenance", async () => {
    world = h.world()
    world.tmux("libtmux-mcp", "new-session", "-d", "-s", "by-hand")
    const c = await h.connect(world)
    assert.notInclude(await names(c), "kill_session")
    assert.include(c.stderr(), `default_reason="existing server of unknown provenance"`)
  })

  it("omits teardown on an explicitly configured socket", async () => {
    const c = await open({ LIBTMUX_SOCKET: "name:elsewhere" })
    assert.notInclude(await names(c), "kill_session")
    assert.include(c.stderr(), `default_reason="explicitly configured endpoint"`)
  })

  it("omits teardown with the user's tmux configuration", async () => {
    const c = await open({ LIBTMUX_TMUX_CONFIG: "user" })
    assert.notInclude(await names(c), "kill_session")
  })
})

describe("startup record", () => {
  it("prints one ready line on stderr whose resolved socket lies under the test's TMUX_TMPDIR", async () => {
    const c = await open()
    await c.client.listTools()
    const lines = c.stderr().split("\n").filter((line) => line.startsWith("libtmux-mcp ready"))
    assert.strictEqual(lines.length, 1)
    assert.include(lines[0], recordPair("resolved_socket_path", world.socketPath("libtmux-mcp")))
    assert.isTrue(world.socketPath("libtmux-mcp").startsWith(world.dir))
    assert.include(lines[0], "host_command_tools=0")
    assert.include(lines[0], "server_state=absent")
  })
})
