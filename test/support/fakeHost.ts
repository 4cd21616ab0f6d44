/**
 * A stand-in for a host's server, for the hub's transport tests: it speaks MCP over stdio (initialize,
 * tools/list, tools/call) and answers capture_pane as its arguments ask: `answer` "small" (a valid
 * result), "big" (a valid result whose message takes about `bytes` bytes), "not-json" (a line that is
 * no JSON), or "big-notice" (a progress notification of about `bytes` bytes, then a small result).
 * Run by node: `node test/support/fakeHost.ts`.
 */
import { createInterface } from "node:readline"

const send = (message: unknown) => process.stdout.write(`${JSON.stringify(message)}\n`)
const result = (content: string) => {
  const structured = { pane_id: "%0", content, lines: 1 }
  return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured }
}

createInterface({ input: process.stdin }).on("line", (line) => {
  const message = JSON.parse(line) as {
    id?: number
    method?: string
    params?: { protocolVersion?: string; arguments?: { answer?: string; bytes?: number } }
  }
  const { id, method, params } = message
  if (method === "initialize") {
    send({
      jsonrpc: "2.0",
      id,
      result: {
        protocolVersion: params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "fake-host", version: "0" }
      }
    })
  } else if (method === "tools/list") {
    send({ jsonrpc: "2.0", id, result: { tools: [{ name: "capture_pane", inputSchema: { type: "object" } }] } })
  } else if (method === "tools/call") {
    const { answer = "small", bytes = 0 } = params?.arguments ?? {}
    // The result comes twice in a message (the text is its JSON): half the bytes each.
    if (answer === "big") send({ result: result("x".repeat(Math.round(bytes / 2))), jsonrpc: "2.0", id })
    else if (answer === "not-json") process.stdout.write(`{"result": oops, "jsonrpc": "2.0", "id": ${id}}\n`)
    else {
      if (answer === "big-notice") {
        send({
          jsonrpc: "2.0",
          method: "notifications/message",
          params: { level: "info", data: "x".repeat(bytes) }
        })
      }
      send({ result: result("small"), jsonrpc: "2.0", id })
    }
  } else if (id !== undefined) send({ jsonrpc: "2.0", id, result: {} })
})
