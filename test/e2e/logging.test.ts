/**
 * MCP logging: the server's log lines reach a client that asked for them with logging/setLevel,
 * at or above the level it chose, as notifications/message, and still go to stderr.
 */
import { type JSONRPCMessage, LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import type { Connected } from "../support/mcp.ts"
import { until as poll } from "../support/poll.ts"

const h = harness("logging")

interface Received {
  readonly level: string
  readonly logger?: string | undefined
  readonly data: unknown
}

const collect = (c: Connected): Array<Received> => {
  const received: Array<Received> = []
  c.client.setNotificationHandler(
    LoggingMessageNotificationSchema,
    (notification) => void received.push(notification.params)
  )
  return received
}

const until = (condition: () => boolean, what: string) => poll(what, condition)

/** A line that is JSON but not JSON-RPC: the server refuses it and logs a warning. */
const sendRefusedLine = (c: Connected) => c.client.transport!.send({ not: "json-rpc" } as unknown as JSONRPCMessage)

describe("logging capability", () => {
  it("is declared", async () => {
    const c = await h.connect(h.world())
    assert.deepStrictEqual(c.client.getServerCapabilities()?.logging, {})
  })

  it(
    "sends a client that set a level the startup lines at " +
      "or above it, then later lines, as stderr has them",
    async () => {
      const c = await h.connect(h.world(), { LIBTMUX_SOCKET: "inherit" })
      const received = collect(c)
      await c.client.setLoggingLevel("warning")
      await until(() => received.length >= 1, "the startup warning")
      assert.strictEqual(received[0]!.level, "warning")
      assert.strictEqual(received[0]!.logger, "libtmux-mcp")
      assert.match(String(received[0]!.data), /^libtmux-mcp warning: socket=inherit /u)
      // The ready line is info: below the level asked for.
      assert.isFalse(received.some((message) => String(message.data).startsWith("libtmux-mcp ready ")))
      await sendRefusedLine(c)
      await until(() => received.length >= 2, "the refused line's warning")
      assert.strictEqual(received[1]!.level, "warning")
      assert.match(String(received[1]!.data), /^libtmux-mcp: refused a JSON-RPC line \(id null\): Invalid Request/u)
      for (const message of received) assert.include(c.stderr(), `${String(message.data)}\n`)
    }
  )

  it("takes a later level: a line below the first level is not sent, one at the second is", async () => {
    const c = await h.connect(h.world())
    const received = collect(c)
    await c.client.setLoggingLevel("error")
    await sendRefusedLine(c)
    await c.client.listTools()
    await c.client.setLoggingLevel("info")
    await sendRefusedLine(c)
    await until(() => received.some((message) => message.level === "warning"), "the second refused line")
    assert.deepStrictEqual(received.map((message) => message.level), ["warning"])
    assert.match(String(received[0]!.data), /refused a JSON-RPC line/u)
  })

  it("sends nothing to a client that did not ask", async () => {
    const c = await h.connect(h.world(), { LIBTMUX_SOCKET: "inherit" })
    const received = collect(c)
    await sendRefusedLine(c)
    await c.client.listTools()
    await until(() => c.stderr().includes("refused a JSON-RPC line"), "the refusal on stderr")
    await c.client.listTools()
    assert.deepStrictEqual(received, [])
  })
})
