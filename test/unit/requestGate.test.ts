/**
 * The gate of one connection (src/wire/RequestGate.ts): its first request chooses the revision;
 * 2025-11-25's lifecycle is as before; 2026-07-28's requests need their envelope, what it adds is
 * answered here, and its results are stamped as it requires.
 */
import { assert, describe, it } from "vitest"
import { requestGate } from "../../src/wire/RequestGate.ts"

const server = { name: "libtmux-mcp", title: "libtmux-mcp", version: "0" }
const envelope = (version = "2026-07-28") => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientCapabilities": {}
})
const request = (id: number, method: string, params: Record<string, unknown> = {}) =>
  ({ jsonrpc: "2.0", id, method, params }) as const
const initialize = request(1, "initialize", {
  protocolVersion: "2025-11-25",
  capabilities: {},
  clientInfo: { name: "old", version: "0" }
})

describe("the request gate", () => {
  it("2025-11-25: nothing but initialize and ping before initialize, initialize once, results untouched", () => {
    const gate = requestGate(() => server)
    assert.strictEqual(gate.admit(request(1, "ping")), undefined)
    assert.deepInclude(gate.admit(request(2, "tools/list")), { code: -32600 })
    assert.strictEqual(gate.admit(initialize), undefined)
    assert.strictEqual(gate.era(), "legacy")
    assert.deepInclude(gate.admit({ ...initialize, id: 3 }), { code: -32600 })
    assert.strictEqual(gate.admit(request(4, "tools/list")), undefined)
    const answer = { jsonrpc: "2.0", id: 4, result: { tools: [] } } as const
    assert.deepStrictEqual(gate.answer(answer), answer)
    // An enveloped request on a 2025-11-25 connection is one of that revision.
    assert.strictEqual(gate.admit(request(5, "tools/list", { _meta: envelope() })), undefined)
    assert.strictEqual(gate.era(), "legacy")
  })

  it("a discover probe chooses nothing; initialize after it opens 2025-11-25", () => {
    const gate = requestGate(() => server)
    assert.strictEqual(gate.admit(request(1, "server/discover")), "local")
    assert.strictEqual(gate.era(), undefined)
    assert.strictEqual(gate.admit({ ...initialize, id: 2 }), undefined)
    assert.strictEqual(gate.era(), "legacy")
  })

  it("2026-07-28: the envelope chooses it, is required after, and a revision not served is -32022", () => {
    const gate = requestGate(() => server)
    assert.deepInclude(gate.admit(request(1, "tools/list", { _meta: envelope("2099-01-01") })), {
      code: -32022,
      data: { supported: ["2026-07-28"], requested: "2099-01-01" }
    })
    assert.strictEqual(gate.era(), undefined)
    assert.strictEqual(gate.admit(request(2, "tools/list", { _meta: envelope() })), undefined)
    assert.strictEqual(gate.era(), "modern")
    assert.deepInclude(gate.admit(request(3, "tools/list")), { code: -32602 })
    assert.deepInclude(gate.admit(request(4, "ping", { _meta: envelope() })), { code: -32601 })
    assert.deepInclude(gate.admit({ ...initialize, id: 5 }), { code: -32022 })
    for (const method of ["server/discover", "tasks/get", "tasks/update", "tasks/cancel", "subscriptions/listen"]) {
      assert.strictEqual(gate.admit(request(6, method, { _meta: envelope() })), "local", method)
    }
  })

  it("stamps a 2026-07-28 result: resultType, cache fields where cacheable, serverInfo; no content on a task", () => {
    const gate = requestGate(() => server)
    gate.admit(request(1, "tools/list", { _meta: envelope() }))
    gate.admit(request(2, "tools/call", { _meta: envelope(), name: "list_sessions", arguments: {} }))
    gate.admit(request(3, "tools/call", { _meta: envelope(), name: "run_shell_command", arguments: {} }))
    const listed = gate.answer({ jsonrpc: "2.0", id: 1, result: { tools: [] } }) as { result: any }
    assert.deepStrictEqual(listed.result, {
      tools: [],
      resultType: "complete",
      ttlMs: 0,
      cacheScope: "private",
      _meta: { "io.modelcontextprotocol/serverInfo": server }
    })
    const called = gate.answer({ jsonrpc: "2.0", id: 2, result: { content: [] } }) as { result: any }
    assert.strictEqual(called.result.resultType, "complete")
    assert.notProperty(called.result, "ttlMs")
    const task = gate.answer({
      jsonrpc: "2.0",
      id: 3,
      result: { content: [], resultType: "task", taskId: "t" }
    }) as { result: any }
    assert.notProperty(task.result, "content")
    assert.strictEqual(task.result.resultType, "task")
  })

  it("a listen stream's cancellation is taken; a cancelled request keeps nothing for an answer", () => {
    const gate = requestGate(() => server)
    gate.admit(request(1, "subscriptions/listen", { _meta: envelope(), notifications: {} }))
    const cancel = (requestId: number) =>
      ({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId } }) as const
    assert.strictEqual(gate.admit(cancel(1)), "taken")
    gate.admit(request(2, "tools/list", { _meta: envelope() }))
    // Passed on to the SDK, which stops the request.
    assert.strictEqual(gate.admit(cancel(2)), undefined)
    const late = { jsonrpc: "2.0", id: 2, result: { tools: [] } } as const
    assert.deepStrictEqual(gate.answer(late), late)
  })
})
