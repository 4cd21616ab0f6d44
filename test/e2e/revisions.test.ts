/**
 * Both revisions on one stdio server: a client that opens with `initialize` gets 2025-11-25 as
 * before (a `server/discover` probe first changes nothing), one whose requests carry the 2026-07-28
 * envelope gets that revision: `server/discover` soon after spawn, `resultType` and cache fields on
 * results, the envelope required on every request, `-32022` for a revision not served.
 */
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { envelope, type Modern, revision, startModern, tasksExtension } from "../support/modernClient.ts"
import { until } from "../support/poll.ts"
import type { TmuxWorld } from "../support/tmux.ts"

const h = harness("revisions")

const modernIn = (world: TmuxWorld) => {
  const m = startModern(world)
  // Ended (stdin closed, waited for) before its world goes.
  h.track({ client: undefined as never, stderr: m.stderr, close: m.close })
  return m
}

const initialize = (id: string) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "old", version: "0" } }
})

describe.concurrent("two revisions on one stdio server", () => {
  it("answers server/discover soon after spawn, naming 2026-07-28 and the tasks extension", async () => {
    // The bound is the outcome a host needs (Claude Code keeps a stdio server whose discover answer comes
    // within 3 s of its spawn), polled for with that deadline; bench/task-idle.ts measures the time itself.
    const m = modernIn(h.world())
    let got: Awaited<ReturnType<Modern["raw"]>> | undefined
    void m.raw({ jsonrpc: "2.0", id: "d", method: "server/discover", params: { _meta: envelope(true) } })
      .then((reply) => (got = reply))
    const answer = await until("the discover answer", () => got, (reply) => reply !== undefined, {
      timeoutMs: 3000,
      intervalMs: 10
    })
    assert.deepStrictEqual(answer!.result.supportedVersions, [revision])
    assert.deepStrictEqual(answer!.result.capabilities.extensions, { [tasksExtension]: {} })
    assert.strictEqual(answer!.result.resultType, "complete")
    assert.strictEqual(answer!.result.ttlMs, 0)
    assert.strictEqual(answer!.result.cacheScope, "private")
    assert.include(answer!.result.instructions, "tmux")
    // The same budget as the instructions of initialize, the task note included.
    assert.isAtMost(Buffer.byteLength(answer!.result.instructions), 2048)
    assert.strictEqual(answer!.result._meta["io.modelcontextprotocol/serverInfo"].name, "libtmux-mcp")
  })

  it("a discover probe then initialize: a 2025-11-25 session, as without the probe", async () => {
    const m = modernIn(h.world())
    await m.raw({ jsonrpc: "2.0", id: "d", method: "server/discover", params: {} })
    const opened = await m.raw(initialize("i"))
    assert.strictEqual(opened.result.protocolVersion, "2025-11-25")
    assert.deepStrictEqual(opened.result.capabilities, { tools: {}, resources: {}, logging: {} })
    const listed = await m.raw({ jsonrpc: "2.0", id: "l", method: "tools/list", params: {} })
    assert.notProperty(listed.result, "resultType")
    assert.notProperty(listed.result, "ttlMs")
    // Once initialized, discover is not a method of that revision.
    assert.strictEqual((await m.raw({ jsonrpc: "2.0", id: "d2", method: "server/discover" })).error.code, -32601)
  })

  it("on 2026-07-28: results carry resultType and cache fields; ping, setLevel, initialize not served", async () => {
    const m = modernIn(h.world())
    const listed = await m.request("tools/list")
    assert.strictEqual(listed.result.resultType, "complete")
    assert.strictEqual(listed.result.ttlMs, 0)
    assert.strictEqual(listed.result.cacheScope, "private")
    assert.isAbove(listed.result.tools.length, 10)
    const read = await m.request("resources/read", { uri: "tmux://capabilities" })
    assert.strictEqual(read.result.resultType, "complete")
    assert.strictEqual(read.result.ttlMs, 0)
    const call = await m.callTool("list_sessions", {})
    assert.strictEqual(call.resultType, "complete")
    assert.notProperty(call, "ttlMs")
    assert.strictEqual((await m.request("ping")).error.code, -32601)
    assert.strictEqual((await m.request("logging/setLevel", { level: "info" })).error.code, -32601)
    const again = await m.raw(initialize("i"))
    assert.strictEqual(again.error.code, -32022)
    assert.deepStrictEqual(again.error.data.supported, [revision])
  })

  it("on 2026-07-28 run_shell_command and the instructions tell of tasks; on 2025-11-25 they do not", async () => {
    const m = modernIn(h.world())
    const modern = (await m.request("tools/list")).result.tools
    const discovered = (await m.request("server/discover")).result
    const old = modernIn(h.world())
    const opened = await old.raw(initialize("i"))
    const legacy = (await old.raw({ jsonrpc: "2.0", id: "l", method: "tools/list", params: {} })).result.tools
    const description = (tools: ReadonlyArray<{ name: string; description: string }>) =>
      tools.find((tool) => tool.name === "run_shell_command")?.description ?? ""
    assert.include(description(modern), "io.modelcontextprotocol/tasks")
    assert.notInclude(description(legacy), "io.modelcontextprotocol/tasks")
    assert.strictEqual(description(modern).replace(/ With a host that holds MCP tasks.*$/u, ""), description(legacy))
    assert.include(discovered.instructions, "MCP tasks")
    assert.notInclude(opened.result.instructions, "MCP tasks")
  })

  it("every request needs the envelope; a revision not served is -32022 naming the one served", async () => {
    const m = modernIn(h.world())
    const first = await m.raw({
      jsonrpc: "2.0",
      id: "v",
      method: "tools/list",
      params: { _meta: envelope(false, "2099-01-01") }
    })
    assert.strictEqual(first.error.code, -32022)
    assert.deepStrictEqual(first.error.data, { supported: [revision], requested: "2099-01-01" })
    await m.request("tools/list")
    const bare = await m.raw({ jsonrpc: "2.0", id: "b", method: "tools/list", params: {} })
    assert.strictEqual(bare.error.code, -32602)
    assert.include(bare.error.message, "io.modelcontextprotocol/protocolVersion")
    const later = await m.raw({
      jsonrpc: "2.0",
      id: "v2",
      method: "tools/list",
      params: { _meta: envelope(false, "2025-11-25") }
    })
    assert.strictEqual(later.error.code, -32022)
  })

  it("a subscriptions/listen stream is acknowledged with no notification types, and cancelled quietly", async () => {
    const m = modernIn(h.world())
    m.child.stdin.write(
      `${
        JSON.stringify({
          jsonrpc: "2.0",
          id: "s",
          method: "subscriptions/listen",
          params: { _meta: envelope(true), notifications: { toolsListChanged: true } }
        })
      }\n`
    )
    const listed = await m.request("tools/list")
    assert.strictEqual(listed.result.resultType, "complete")
    const ack = m.notifications.find((message) => message.method === "notifications/subscriptions/acknowledged")
    assert.deepStrictEqual(ack, {
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: { "io.modelcontextprotocol/subscriptionId": "s" }, notifications: {} }
    } as never)
    m.child.stdin.write(
      `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "s" } })}\n`
    )
    assert.strictEqual((await m.request("tools/list")).result.resultType, "complete")
    assert.isFalse(m.notifications.some((message) => message.id === "s"), "no answer closes a cancelled stream")
    assert.notInclude(m.stderr(), "refused")
  })

  it("offers the pane view to a request that declares the UI extension, and to no other request", async () => {
    const m = modernIn(h.world())
    const ui = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } }
    const withUi = { ...envelope(false), "io.modelcontextprotocol/clientCapabilities": ui }
    const ask = (id: string, method: string, meta: Record<string, unknown>, params = {}) =>
      m.raw({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } })
    const viewed = (await ask("l1", "tools/list", withUi)).result.tools as Array<{ name: string; _meta?: any }>
    assert.deepStrictEqual(viewed.find((tool) => tool.name === "view_pane")?._meta?.ui?.visibility, ["app"])
    const plain = (await ask("l2", "tools/list", envelope(false))).result.tools as Array<{ name: string }>
    assert.notInclude(plain.map((tool) => tool.name), "view_pane")
    assert.lengthOf(plain, 47)
    const resources = (await ask("r1", "resources/list", withUi)).result.resources as Array<{ uri: string }>
    assert.include(resources.map((resource) => resource.uri), "ui://libtmux-mcp/pane")
    const page = await ask("r2", "resources/read", withUi, { uri: "ui://libtmux-mcp/pane" })
    assert.strictEqual(page.result.contents[0].mimeType, "text/html;profile=mcp-app")
    const refused = await ask("r3", "resources/read", envelope(false), { uri: "ui://libtmux-mcp/pane" })
    assert.strictEqual(refused.error?.code, -32002)
    const call = await ask("c1", "tools/call", envelope(false), { name: "view_pane", arguments: { pane_id: "%0" } })
    assert.match(call.error?.message ?? "", /view_pane is the pane view's own tool/u)
  })
})
