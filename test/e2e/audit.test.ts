/**
 * The audit record: an intent record before each call and batch operation acts and an outcome record
 * after it, with the row's facts, targets and a redacted argument summary; a record for each refused
 * call; a payload marker never appears on stderr, in the audit file or in an error message, whichever
 * payload-bearing tool carried it, nested batch arguments included.
 */
import { readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { call, structured, textOf } from "../support/mcp.ts"
import { shellEnv } from "../support/shells.ts"

const h = harness("audit")
const marker = "SECRET-MARKER-7f3a9c"

describe("audit record", () => {
  it(
    "records every call with its facts and targets in a 0600 " +
      "file, and payloads only as length and keyed digest",
    async () => {
      const world = h.world()
      const log = join(world.dir, "audit.jsonl")
      const c = await h.connect(world, {
        ...shellEnv(world, "/bin/bash"),
        LIBTMUX_AUDIT_LOG: log,
        LIBTMUX_EXCLUDE_TOOLS: "kill_pane"
      })
      const pane = structured(await call(c, "create_session", { session_name: "a" })).pane_id
      const errors: Array<string> = []
      const calls: ReadonlyArray<[string, Record<string, unknown>]> = [
        ["run_shell_command", { pane_id: pane, command: `: ${marker}` }],
        ["run_shell_command", { pane_id: pane, command: `: ${marker}`, timeout: -1 }],
        ["send_keys", { pane_id: pane, keys: `# ${marker}`, enter: false }],
        ["send_keys", { pane_id: pane, keys: `${marker}`, unexpected: marker }],
        ["send_keys_batch", { operations: [{ pane_id: pane, keys: `# ${marker}`, enter: false }] }],
        ["send_keys_batch", { operations: [{ pane_id: "%99", keys: marker }] }],
        ["paste_text", { pane_id: pane, text: `# ${marker}` }],
        ["paste_text", { pane_id: "%99", text: marker }],
        ["respawn_pane", { pane_id: pane, command: `sleep 30 # ${marker}` }],
        ["respawn_pane", { pane_id: pane, command: marker, start_directory: "relative" }],
        ["call_read_tools_batch", {
          operations: [{ tool: "list_sessions" }, { tool: "get_pane_info", arguments: { pane_id: pane } }]
        }],
        ["call_read_tools_batch", {
          operations: [{ tool: "get_pane_info", arguments: { pane_id: pane, note: marker } }, {
            tool: "send_keys",
            arguments: { pane_id: pane, keys: marker }
          }]
        }]
      ]
      for (const [tool, args] of calls) {
        const result = await call(c, tool, args)
        if (result.isError === true) errors.push(textOf(result))
      }
      // Refused before anything runs: an unknown tool and one outside the selection (JSON-RPC errors).
      for (const [tool, args] of [["no_such_tool", { keys: marker }], ["kill_pane", { pane_id: pane }]] as const) {
        const refused = await call(c, tool, args).then(() => "accepted", (error: Error) => error.message)
        assert.notInclude(refused, marker)
        assert.notStrictEqual(refused, "accepted")
      }
      assert.isAbove(errors.length, 3)
      for (const text of errors) assert.notInclude(text, marker)
      assert.notInclude(c.stderr(), marker)
      const records = readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line))
      assert.notInclude(readFileSync(log, "utf8"), marker)
      assert.strictEqual(statSync(log).mode & 0o777, 0o600)
      const intents = records.filter((record) => record.event === "tool_call_intent")
      const outcomes = records.filter((record) => record.event === "tool_call_outcome")
      for (const intent of intents) {
        assert.isDefined(outcomes.find((outcome) => outcome.call === intent.call), intent.tool)
      }
      assert.strictEqual(intents.filter((record) => record.tool === "run_shell_command").length, 2)
      const run = outcomes.find((record) => record.tool === "run_shell_command" && record.outcome === "ok")
      assert.deepStrictEqual(run.targets, [pane])
      assert.isNumber(run.duration_ms)
      const runIntent = intents.find((record) => record.call === run.call)
      assert.deepInclude(runIntent, {
        toolset: "execute",
        process_reach: "pane-command",
        tmux_effect: ["change"],
        targets: [pane]
      })
      assert.strictEqual(runIntent.arguments.pane_id, pane)
      assert.deepStrictEqual(Object.keys(runIntent.arguments.command), ["length", "hmac"])
      assert.strictEqual(runIntent.arguments.command.length, marker.length + 2)
      assert.match(runIntent.client_id, /^libtmux-mcp-tests\//)
      const nested = intents.filter((record) => record.parent === "call_read_tools_batch")
      assert.deepStrictEqual(nested.map((record) => record.tool), ["list_sessions", "get_pane_info"])
      // The batch's own record redacts each operation's arguments by the sinks of the tool it names.
      const batch = intents.filter((record) => record.tool === "call_read_tools_batch")[1]
      assert.deepStrictEqual(batch.arguments.operations[0].arguments.pane_id, pane)
      assert.deepStrictEqual(
        Object.keys(batch.arguments.operations[0].arguments["(unknown properties)"][0].value),
        ["length", "hmac"]
      )
      assert.deepStrictEqual(Object.keys(batch.arguments.operations[1].arguments.keys), ["length", "hmac"])
      const rejected = records.filter((record) => record.event === "tool_call_rejected")
      assert.deepStrictEqual(rejected.map((record) => [record.tool, record.reason, record.parent]), [
        ["(unknown)", "unknown", undefined],
        ["kill_pane", "not_selected", undefined]
      ])
      assert.deepStrictEqual(Object.keys(rejected[0].arguments["(unknown properties)"][0].name), ["length", "hmac"])
      assert.deepStrictEqual(rejected[1].arguments, { pane_id: pane })
      assert.notInclude(c.stderr(), "tool_call")
    }
  )

  it("names its process on every line: a server and the one restarted after it are told apart", async () => {
    const world = h.world()
    const log = join(world.dir, "audit.jsonl")
    const pids: Array<number> = []
    for (let server = 0; server < 2; server++) {
      const c = await h.connect(world, { LIBTMUX_AUDIT_LOG: log })
      pids.push(c.pid?.() ?? 0)
      structured(await call(c, "list_sessions", {}))
      await c.close()
    }
    const records = readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line))
    const intents = records.filter((record) => record.event === "tool_call_intent")
    // Each process numbers its calls from 1: the call number alone cannot tell them apart.
    assert.deepStrictEqual(intents.map((record) => record.call), [1, 1])
    const tags = intents.map((record) => String(record.instance))
    assert.deepStrictEqual(tags.map((tag) => Number(tag.split(".")[0])), pids)
    for (const tag of tags) assert.match(tag, /^[0-9]+\.[0-9]+\.[0-9]*$/u)
    for (const record of records) assert.include(tags, record.instance, JSON.stringify(record))
  })
})
