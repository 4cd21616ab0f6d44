/** The line transport's framing: lines split across chunks, several lines in one chunk, an oversized line. */
import { PassThrough } from "node:stream"
import { assert, describe, it } from "vitest"
import { LineTransport, UnreadCall } from "../../src/wire/StdioLines.ts"

const initializeParams = { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } }

const setup = (limit: number) => {
  const input = new PassThrough()
  const output = new PassThrough()
  const written: Array<unknown> = []
  output.on(
    "data",
    (chunk: Buffer) =>
      chunk.toString("utf8").split("\n").filter((line) => line !== "").forEach((line) => written.push(JSON.parse(line)))
  )
  const received: Array<unknown> = []
  const extras: Array<unknown> = []
  const transport = new LineTransport(input, output, limit)
  transport.onmessage = (message, extra) => {
    received.push(message)
    extras.push(extra)
  }
  return { input, written, received, extras, transport }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe("LineTransport", () => {
  it("joins a line split across chunks and splits several lines in one chunk", async () => {
    const { input, received, transport } = setup(1024)
    await transport.start()
    const ping = (id: number) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })
    input.write(ping(1).slice(0, 5))
    input.write(ping(1).slice(5) + "\n" + ping(2) + "\r\n\n" + ping(3).slice(0, 3))
    input.write(ping(3).slice(3) + "\n")
    await settle()
    assert.deepStrictEqual(received.map((message) => (message as { id: number }).id), [1, 2, 3])
  })

  it("answers a line over the limit with its trailing id, across chunks, and reads the next line", async () => {
    const { input, written, received, transport } = setup(64)
    await transport.start()
    const long = JSON.stringify({ method: "ping", params: { pad: "x".repeat(200) }, jsonrpc: "2.0", id: "r-1" })
    input.write(long.slice(0, 100))
    input.write(long.slice(100) + "\n")
    input.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }) + "\n")
    await settle()
    assert.deepStrictEqual(written, [{
      jsonrpc: "2.0",
      id: "r-1",
      error: {
        code: -32600,
        message: "Invalid Request: a message may be at most 64 bytes; this line was longer and was discarded unread"
      }
    }])
    assert.deepStrictEqual(received, [{ jsonrpc: "2.0", id: 2, method: "ping" }])
  })

  it(
    "passes a tools/call whose arguments break a bound on without them, marked unread, and answers other " +
      "lines over a bound with the bound",
    async () => {
      const { input, written, received, extras, transport } = setup(10 * 1024 * 1024)
      await transport.start()
      input.write(
        JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: initializeParams }) + "\n"
      )
      const many = Object.fromEntries(Array.from({ length: 5000 }, (_, index) => [`p${index}`, index]))
      // The id and the method after the arguments: the scan reads on to the end of the line.
      const call = JSON.stringify({ params: { arguments: many, name: "list_sessions" }, method: "tools/call", id: "c" })
      input.write(call.slice(0, 1000))
      input.write(call.slice(1000) + "\n")
      input.write(JSON.stringify({ jsonrpc: "2.0", id: 5, method: "ping", params: { arguments: many } }) + "\n")
      input.write(JSON.stringify({ jsonrpc: "2.0", id: 6, method: "ping", params: { _meta: { many } } }) + "\n")
      await settle()
      assert.deepStrictEqual(received.slice(1), [{
        jsonrpc: "2.0",
        id: "c",
        method: "tools/call",
        params: { name: "list_sessions" }
      }])
      const unread = (extras[1] as { requestInfo?: unknown }).requestInfo
      assert.instanceOf(unread, UnreadCall)
      assert.strictEqual((unread as UnreadCall).arguments.broken, "values")
      assert.deepStrictEqual(written, [{
        jsonrpc: "2.0",
        id: 5,
        error: {
          code: -32600,
          message: "Invalid Request: the params' arguments hold more than 1024 properties and array items " +
            "(counted at any depth); no tool takes more; this line was discarded unread"
        }
      }, {
        jsonrpc: "2.0",
        id: 6,
        error: {
          code: -32600,
          message: "Invalid Request: a message may hold at most 4096 properties and array items; this line " +
            "held more and was discarded unread"
        }
      }])
    }
  )
})
