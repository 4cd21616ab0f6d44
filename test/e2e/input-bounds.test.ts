/**
 * Client input bounded before it is parsed deeply (issue 33, item 3, and the arguments nested
 * 10,000 deep): a call with 600,000 unknown properties, a batch of 400,000 operations and arguments
 * nested 10,000 deep are each refused as InputInvalid naming the bound, with their audit records,
 * within a bounded time; pings sent meanwhile are answered, and the server keeps serving.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { call, type Connected, structured, textOf } from "../support/mcp.ts"
import { until } from "../support/poll.ts"
import { startRaw } from "../support/rawServer.ts"

const h = harness("bounds")
const errorTag = (result: Awaited<ReturnType<typeof call>>) => result._meta?.["com.git-pull.libtmux-mcp/error"]

/** A server writing its audit records to a file in the world, and a reader of those records. */
const audited = async () => {
  const world = h.world()
  const log = join(world.dir, "audit.jsonl")
  const c = await h.connect(world, { LIBTMUX_AUDIT_LOG: log })
  const records = () =>
    readFileSync(log, "utf8").trim().split("\n").filter((line) => line !== "").map((line) =>
      JSON.parse(line) as Record<string, unknown>
    )
  return { c, records }
}

/** The intent and outcome records of the one call to `tool`, once both are written. */
const recordsOf = async (records: () => ReadonlyArray<Record<string, unknown>>, tool: string) => {
  const pair = await until(
    `the intent and outcome records of ${tool}`,
    () => records().filter((record) => record.tool === tool),
    (found) => found.length === 2
  )
  return { intent: pair[0]!, outcome: pair[1]! }
}

/** Sends a call without waiting; its request fails when it is not answered within `within` ms. */
const sendCall = (c: Connected, tool: string, args: Record<string, unknown>, within = 120_000) =>
  call(c, tool, args, { timeout: within })

describe("input bounds", () => {
  it(
    "refuses a call with 600,000 unknown properties unread while 50 pings sent meanwhile are answered, " +
      "audits it, and keeps serving",
    async () => {
      const { c, records } = await audited()
      const args: Record<string, string> = {}
      for (let index = 0; index < 600_000; index++) args[`p${index}`] = "v"
      const big = sendCall(c, "list_sessions", args)
      // Bounds for a loaded machine, as request timeouts (on be1185b every ping waited 45-87 s): the
      // first ping waits behind the call's bytes in the pipe, which no server reads faster than they
      // come; every later one is answered within 2 s. bench/input-bounds.ts measures the latencies.
      await c.client.ping({ timeout: 15_000 })
      for (let index = 1; index < 50; index++) await c.client.ping({ timeout: 2_000 })
      const result = await big
      assert.strictEqual(errorTag(result), "InputInvalid")
      assert.strictEqual(
        textOf(result),
        "invalid arguments for list_sessions: refused before decoding: the arguments hold more than 1024 " +
          "properties and array items (counted at any depth); no tool takes more"
      )
      const { intent, outcome } = await recordsOf(records, "list_sessions")
      assert.deepStrictEqual(intent.arguments, { "(over the bounds)": "values" })
      assert.deepStrictEqual([outcome.outcome, outcome.error_tag], ["error", "InputInvalid"])
      assert.property(structured(await call(c, "list_sessions")), "sessions")
    },
    120_000
  )

  it("refuses a call_read_tools_batch of 400,000 operations unread, at once", async () => {
    const { c, records } = await audited()
    // 8.8 MB: within the line limit.
    const operations = Array.from({ length: 400_000 }, () => ({ tool: "list_panes" }))
    // At once: within 5 s of the request, on a loaded machine (3.9 s to 11 s on be1185b).
    const result = await sendCall(c, "call_read_tools_batch", { operations }, 5_000)
    assert.strictEqual(errorTag(result), "InputInvalid")
    assert.strictEqual(
      textOf(result),
      "invalid arguments for call_read_tools_batch: refused before decoding: an array in the arguments has more " +
        "than 32 items; no tool takes more"
    )
    const { intent } = await recordsOf(records, "call_read_tools_batch")
    assert.deepStrictEqual(intent.arguments, { "(over the bounds)": "items" })
    // No operation ran.
    assert.isFalse(records().some((record) => record.parent === "call_read_tools_batch"))
    assert.property(structured(await call(c, "list_sessions")), "sessions")
  }, 120_000)

  it("refuses arguments nested 10,000 deep as invalid input naming the depth limit, with audit records", async () => {
    const world = h.world()
    const log = join(world.dir, "audit.jsonl")
    const server = startRaw(world, { LIBTMUX_AUDIT_LOG: log })
    try {
      await server.initialize()
      // Written as text: JSON.stringify (the SDK client's) runs out of stack on it.
      const deep = `${"[".repeat(10_000)}"x"${"]".repeat(10_000)}`
      const lines = [
        ["list_sessions", `{"nested":${deep}}`],
        ["list_windows", `{"session_id":${deep}}`]
      ] as const
      for (const [index, [tool, args]] of lines.entries()) {
        server.send(
          `{"jsonrpc":"2.0","id":${index},"method":"tools/call","params":{"name":"${tool}","arguments":${args}}}`
        )
        const result = (await server.answer(index)).result
        assert.strictEqual(errorTag(result), "InputInvalid", JSON.stringify(result))
        assert.strictEqual(
          textOf(result),
          `invalid arguments for ${tool}: refused before decoding: the arguments nest deeper than 8 levels ` +
            "(the arguments object is level 1); no tool takes deeper"
        )
      }
      const records = () =>
        readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>)
      for (const [tool] of lines) {
        const { intent, outcome } = await recordsOf(records, tool)
        assert.deepStrictEqual(intent.arguments, { "(over the bounds)": "depth" })
        assert.deepStrictEqual([outcome.outcome, outcome.error_tag], ["error", "InputInvalid"])
      }
      server.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"list_sessions","arguments":{}}}`)
      assert.property((await server.answer(9)).result.structuredContent, "sessions")
    } finally {
      server.child.kill("SIGKILL")
    }
  })
})
