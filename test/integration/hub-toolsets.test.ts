/**
 * A hub whose one remote host (in memory: test/support/memoryHosts.ts) is narrowed with
 * --host-toolsets: each tool's host enum, a call to the host without the tool refused and never
 * sent (the host's audit has no record of it), the host's own server started with the narrowed
 * selection, the toolsets in get_server_info and the capabilities document; a narrowing beyond the
 * hub's selection refused at startup. (The entry `--print-config` prints for a hub, served through
 * a real sshd, is in test/e2e/hub.test.ts.)
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { existsSync, readFileSync } from "node:fs"
import { afterAll, assert, beforeAll, describe, it } from "vitest"
import { manifest, type ToolName } from "../../src/manifest/index.ts"
import { connectInProcess } from "../support/inProcess.ts"
import { call, type Connected, runToExit, structured, textOf } from "../support/mcp.ts"
import { type MemoryHost, memoryHost, memorySessions } from "../support/memoryHosts.ts"
import { makeWorld, type TmuxWorld } from "../support/tmux.ts"

let local: TmuxWorld | undefined
let alpha: MemoryHost | undefined
let hub: Connected | undefined

const auditOfAlpha = (): Array<Record<string, unknown>> =>
  existsSync(alpha!.auditPath)
    ? readFileSync(alpha!.auditPath, "utf8").trim().split("\n").map((line) =>
      JSON.parse(line) as Record<string, unknown>
    )
    : []
const errorTag = (result: CallToolResult) => (result._meta as Record<string, unknown>)["com.git-pull.libtmux-mcp/error"]

beforeAll(async () => {
  local = makeWorld("hubset")
  alpha = memoryHost("alpha", makeWorld("hubset-alpha"))
  hub = await connectInProcess(
    local,
    {},
    ["--host", "alpha=alpha.example", "--toolsets", "inspect,execute", "--host-toolsets", "alpha=inspect"],
    { hostSessions: memorySessions([alpha], 45) }
  )
})

afterAll(async () => {
  await hub?.close().catch(() => undefined)
  await alpha?.stop()
  alpha?.world.dispose()
  local?.dispose()
})

describe("a hub with a host narrowed by --host-toolsets", () => {
  it("lists alpha only on the tools it offers, and requires host where the default is not enough", async () => {
    const { tools } = await hub!.client.listTools()
    for (const tool of tools) {
      const toolset = manifest[tool.name as ToolName].toolset
      assert.deepStrictEqual(
        (tool.inputSchema.properties?.host as { enum?: Array<string> } | undefined)?.enum,
        toolset === "inspect" ? ["local", "alpha"] : ["local"],
        tool.name
      )
      assert.strictEqual((tool.inputSchema.required ?? []).includes("host"), toolset === "execute", tool.name)
    }
    assert.include(hub!.client.getInstructions() ?? "", "Some hosts offer fewer tools")
  })

  it("starts alpha's server with the narrowed selection and shows each host's toolsets", async () => {
    const info = structured(await call(hub!, "get_server_info", { host: "alpha" }))
    assert.strictEqual(info.host, "alpha")
    const states = info.hosts as Array<{ host: string; state: string; tools?: number; toolsets: Array<string> }>
    const inspectTools = (Object.keys(manifest) as Array<ToolName>).filter((name) =>
      manifest[name].toolset === "inspect" && manifest[name].audience === "model"
    )
    assert.deepStrictEqual(states.map((state) => [state.host, state.state, state.toolsets]), [
      ["local", "local", ["inspect", "execute"]],
      ["alpha", "connected", ["inspect"]]
    ])
    // alpha's own tools/list: the hub's inspect tools, no execute tool.
    assert.strictEqual(states[1]!.tools, inspectTools.length)
    const document = await hub!.client.readResource({ uri: "tmux://capabilities" })
    const capabilities = JSON.parse((document.contents[0] as { text: string }).text)
    assert.deepStrictEqual(capabilities.hosts.toolsets, { local: ["inspect", "execute"], alpha: ["inspect"] })
    const records = new Map(
      (capabilities.tools as Array<{ name: string; hosts: Array<string> }>).map((tool) => [tool.name, tool.hosts])
    )
    assert.deepStrictEqual(records.get("capture_pane"), ["local", "alpha"])
    assert.deepStrictEqual(records.get("send_keys"), ["local"])
  })

  it("refuses an execute tool on alpha with HostToolMissing, and sends nothing there", async () => {
    const before = auditOfAlpha().length
    const refused = await call(hub!, "send_keys", { host: "alpha", pane_id: "%0", keys: "x" })
    assert.isTrue(refused.isError)
    assert.strictEqual(errorTag(refused), "HostToolMissing")
    assert.include(textOf(refused), "host alpha offers only the inspect toolset(s) (--host-toolsets), not send_keys")
    assert.include(textOf(refused), "hosts that offer it: local")
    // A read after it goes through: alpha's audit then holds that read and nothing of send_keys.
    structured(await call(hub!, "list_sessions", { host: "alpha" }))
    const after = auditOfAlpha().slice(before)
    assert.isTrue(after.some((line) => line.tool === "list_sessions"), JSON.stringify(after))
    assert.isFalse(auditOfAlpha().some((line) => line.tool === "send_keys"))
    // The hub records the refusal on its own audit, naming the host.
    const hubLines = hub!.stderr().split("\n").filter((line) => line.includes("\"send_keys\""))
    assert.isTrue(hubLines.some((line) => line.includes("\"host\":\"alpha\"")), hubLines.join("\n"))
  })

  it("stops at startup with a host narrowed to a toolset the hub does not select, naming its own", async () => {
    const refused = await runToExit(local!, {}, [
      "--host",
      "alpha=alpha.example",
      "--toolsets",
      "inspect",
      "--host-toolsets",
      "alpha=execute"
    ])
    assert.strictEqual(refused.code, 1, refused.stderr)
    assert.include(refused.stderr, "--host-toolsets alpha=execute names execute")
    assert.include(refused.stderr, "the selection's toolsets: inspect")
  })
})
