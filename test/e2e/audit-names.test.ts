/**
 * Issue 23, item 2: text the tool's schema did not accept reaches the audit file only digested,
 * names included (a property the tool does not take, an unknown tool's name, `_id` keys inside a
 * refused payload); what it accepted stays readable.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { call, structured } from "../support/mcp.ts"

const h = harness("audit-names")
const secret = "SECRET-9f1c"

describe("the audit of refused text", () => {
  it("digests what the schema did not accept, names included, and keeps what it accepted readable", async () => {
    const world = h.world()
    const log = join(world.dir, "audit.jsonl")
    const c = await h.connect(world, { LIBTMUX_AUDIT_LOG: log })
    const pane = structured(await call(c, "create_session", { session_name: "a" })).pane_id
    const refused: ReadonlyArray<[string, Record<string, unknown>]> = [
      ["run_shell_command", { pane_id: pane, command: { token_id: secret } }],
      ["send_keys", { pane_id: pane, keys: "x", enter: false, [`export AWS_SECRET_ACCESS_KEY=${secret}`]: 1 }],
      ["create_session", { session_name: `${secret}.x` }],
      ["call_read_tools_batch", { operations: [{ tool: `${secret} tool`, arguments: { [secret]: 1 } }] }],
      ["get_pane_info", { pane_id: `%1 ${secret}` }]
    ]
    for (const [tool, args] of refused) {
      assert.isTrue((await call(c, tool, args)).isError, tool)
    }
    await call(c, `export AWS_SECRET_ACCESS_KEY=${secret}`, { [secret]: secret }).catch(() => undefined)
    const text = readFileSync(log, "utf8")
    assert.notInclude(text, secret)
    assert.notInclude(text, "AWS_SECRET")
    assert.notInclude(text, "token_id")
    const records = text.trim().split("\n").map((line) => JSON.parse(line))
    const intents = records.filter((record) => record.event === "tool_call_intent")
    assert.deepStrictEqual(intents[0].arguments, { session_name: "a" })
    const run = intents.find((record) => record.tool === "run_shell_command")
    assert.strictEqual(run.arguments.pane_id, pane)
    assert.deepStrictEqual(Object.keys(run.arguments.command), ["length", "hmac"])
    const keys = intents.find((record) => record.tool === "send_keys")
    assert.deepInclude(keys.arguments, { pane_id: pane, keys: keys.arguments.keys, enter: false })
    assert.lengthOf(keys.arguments["(unknown properties)"], 1)
    const rejected = records.find((record) => record.event === "tool_call_rejected")
    assert.strictEqual(rejected.tool, "(unknown)")
    assert.deepStrictEqual(Object.keys(rejected.tool_digest), ["length", "hmac"])
  })
})
