/**
 * The audit record: one event per call and per batch operation, with the row's facts, targets and a
 * redacted argument summary; a payload marker never appears on stderr, in the audit file or in an
 * error message, whichever payload-bearing tool carried it.
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
  it("records every call with its facts and targets in a 0600 file, and payloads only as length and keyed digest", async () => {
    const world = h.world()
    const log = join(world.dir, "audit.jsonl")
    const c = await h.connect(world, { ...shellEnv(world, "/bin/bash"), LIBTMUX_AUDIT_LOG: log })
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
      ["call_read_tools_batch", { operations: [{ tool: "list_sessions" }, { tool: "get_pane_info", arguments: { pane_id: pane } }] }]
    ]
    for (const [tool, args] of calls) {
      const result = await call(c, tool, args)
      if (result.isError === true) errors.push(textOf(result))
    }
    assert.isAbove(errors.length, 3)
    for (const text of errors) assert.notInclude(text, marker)
    assert.notInclude(c.stderr(), marker)
    const records = readFileSync(log, "utf8").trim().split("\n").map((line) => JSON.parse(line))
    assert.notInclude(readFileSync(log, "utf8"), marker)
    assert.strictEqual(statSync(log).mode & 0o777, 0o600)
    assert.strictEqual(records.filter((record) => record.tool === "run_shell_command").length, 2)
    const run = records.find((record) => record.tool === "run_shell_command" && record.outcome === "ok")
    assert.deepInclude(run, { toolset: "execute", process_reach: "pane-command", tmux_effect: ["change"] })
    assert.deepStrictEqual(run.targets, [pane])
    assert.strictEqual(run.arguments.pane_id, pane)
    assert.deepStrictEqual(Object.keys(run.arguments.command), ["length", "hmac"])
    assert.strictEqual(run.arguments.command.length, marker.length + 2)
    assert.match(run.client_id, /^libtmux-mcp-tests\//)
    const nested = records.filter((record) => record.parent === "call_read_tools_batch")
    assert.deepStrictEqual(nested.map((record) => record.tool), ["list_sessions", "get_pane_info"])
    assert.notInclude(c.stderr(), "tool_call")
  })
})
