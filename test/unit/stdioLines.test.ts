/** The line transport's framing: lines split across chunks, several lines in one chunk, an oversized line. */
import { PassThrough } from "node:stream"
import { assert, describe, it } from "vitest"
import { LineTransport } from "../../src/wire/StdioLines.ts"

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
  const transport = new LineTransport(input, output, limit)
  transport.onmessage = (message) => void received.push(message)
  return { input, written, received, transport }
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
        message: "Invalid Request: a message may be at most 64 bytes; this line was longer and was discarded"
      }
    }])
    assert.deepStrictEqual(received, [{ jsonrpc: "2.0", id: 2, method: "ping" }])
  })
})
