/**
 * The hub's transport to a host (issue 58): a host's message over the bound is read to its end and
 * discarded, failing only the call it answers with an error naming the bound, and the session goes
 * on; a line that is no JSON-RPC message fails its call the same way; an oversized notification is
 * dropped. The host is a stand-in server (test/support/fakeHost.ts), run as the hub runs ssh.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { McpError } from "@modelcontextprotocol/sdk/types.js"
import { fileURLToPath } from "node:url"
import { assert, describe, it } from "vitest"
import { answerRefusedCode, HostTransport, maxHostMessageBytes } from "../../src/hub/HostTransport.ts"

const fakeHost = fileURLToPath(new URL("../support/fakeHost.ts", import.meta.url))

const connected = async () => {
  const client = new Client({ name: "hub-test", version: "0" })
  await client.connect(
    new HostTransport({ command: process.execPath, args: [fakeHost], env: { PATH: process.env.PATH ?? "" } })
  )
  return client
}

const capture = (client: Client, args: Record<string, unknown>) =>
  client.callTool({ name: "capture_pane", arguments: args }).then(
    (result) => result as { structuredContent?: { content?: string } },
    (error: unknown) => error
  )

describe("HostTransport", () => {
  it("refuses a 6 MB answer unread, naming the bound, and the session serves the next call", async () => {
    const client = await connected()
    try {
      const refused = await capture(client, { answer: "big", bytes: 6_000_000 })
      assert.instanceOf(refused, McpError)
      assert.strictEqual((refused as McpError).code, answerRefusedCode)
      assert.include((refused as McpError).message, `over ${maxHostMessageBytes} bytes (4 MiB`)
      // An answer within the bound passes whole; the session was kept.
      const kept = await capture(client, { answer: "big", bytes: 1_000_000 })
      assert.strictEqual(
        (kept as { structuredContent: { content: string } }).structuredContent.content.length,
        500_000
      )
    } finally {
      await client.close()
    }
  })

  it("fails the call of a line that is no JSON, and drops an oversized notification", async () => {
    const client = await connected()
    try {
      const broken = await capture(client, { answer: "not-json" })
      assert.instanceOf(broken, McpError)
      assert.strictEqual((broken as McpError).code, answerRefusedCode)
      assert.include((broken as McpError).message, "not a JSON-RPC message")
      const after = await capture(client, { answer: "big-notice", bytes: 4_500_000 })
      assert.strictEqual((after as { structuredContent: { content: string } }).structuredContent.content, "small")
    } finally {
      await client.close()
    }
  })
})
