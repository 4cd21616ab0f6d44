/**
 * The stdio wire under lines a client should not send, through a raw child process writing to the
 * built server's stdin: a line over 10 MiB, text that is not JSON, JSON that is not JSON-RPC. Each
 * gets a JSON-RPC error answer and a stderr line, and the server keeps answering what follows.
 */
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { startRaw } from "../support/rawServer.ts"

const h = harness("stdio")

/** The server as a child in a world of its own, with its answers collected by id. */
const start = () => startRaw(h.world())

describe("stdio lines", () => {
  it(
    "answers an oversized line, text that is not JSON and " +
      "JSON that is not JSON-RPC with errors, and keeps serving",
    async () => {
      const server = start()
      try {
        server.send(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
          })
        )
        assert.property(await server.answer(1), "result")
        server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
        // As the SDK client writes it: the id last.
        server.send(
          JSON.stringify({
            method: "tools/call",
            params: { name: "list_sessions", arguments: { padding: "a".repeat(11 * 1024 * 1024) } },
            jsonrpc: "2.0",
            id: 7
          })
        )
        const oversized = await server.answer(7)
        assert.strictEqual(oversized.error?.code, -32600)
        assert.include(oversized.error?.message, "at most 10485760 bytes")
        server.send("{not json")
        assert.strictEqual((await server.answer(null)).error?.code, -32700)
        server.send(JSON.stringify({ hello: "there", id: 9 }))
        assert.strictEqual((await server.answer(9)).error?.code, -32600)
        server.send(JSON.stringify({ jsonrpc: "2.0", id: 10, method: "ping" }))
        assert.deepStrictEqual((await server.answer(10)).result, {})
        server.send(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 11,
            method: "tools/call",
            params: { name: "list_sessions", arguments: {} }
          })
        )
        assert.property(await server.answer(11), "result")
        assert.strictEqual(server.stderr().match(/refused a JSON-RPC line/gu)?.length, 3)
        assert.notInclude(server.stderr(), "aaaa")
        server.child.stdin.end()
        assert.strictEqual(await server.exited, 0)
      } finally {
        server.child.kill("SIGKILL")
      }
    }
  )
  it(
    "answers calls before initialize, a second initialize and a call without params with the " +
      "JSON-RPC error of each, in one line, and keeps serving (issue 23, item 5)",
    async () => {
      const server = start()
      const initialize = (id: number) =>
        JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
        })
      const oneLine = (answer: { error?: { code: number; message: string } }, code: number) => {
        assert.strictEqual(answer.error?.code, code, JSON.stringify(answer))
        assert.notInclude(answer.error?.message, "\n")
        assert.isBelow(answer.error!.message.length, 240)
      }
      try {
        server.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_sessions" } }))
        oneLine(await server.answer(1), -32600)
        server.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }))
        assert.deepStrictEqual((await server.answer(2)).result, {})
        server.send(initialize(3))
        assert.property(await server.answer(3), "result")
        server.send(initialize(4))
        oneLine(await server.answer(4), -32600)
        server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
        server.send(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call" }))
        const bare = await server.answer(5)
        oneLine(bare, -32602)
        assert.include(bare.error?.message, "params")
        server.send(JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: 5 } }))
        oneLine(await server.answer(6), -32602)
        server.send(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "list_sessions" } }))
        assert.property(await server.answer(7), "result")
        server.child.stdin.end()
        assert.strictEqual(await server.exited, 0)
      } finally {
        server.child.kill("SIGKILL")
      }
    }
  )
})
