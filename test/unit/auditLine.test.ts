/**
 * Audit lines fit one pipe write (4,096 bytes) whatever the call carried, so a record is never torn.
 */
import { assert, describe, it } from "vitest"
import { auditLine, maxAuditLineBytes } from "../../src/domain/auditLine.ts"
import { summarizeBatchArguments, unknownPropertiesKey } from "../../src/domain/redact.ts"

const bytes = (line: string) => Buffer.byteLength(line, "utf8")

describe("auditLine", () => {
  it("keeps a record that fits as one JSON line", () => {
    const record = {
      event: "tool_call_intent",
      call: 1,
      tool: "send_keys",
      targets: ["%1"],
      arguments: { pane_id: "%1" }
    }
    const line = auditLine(record)
    assert.isTrue(line.endsWith("\n"))
    assert.deepStrictEqual(JSON.parse(line), record)
  })

  it("replaces arguments too long for one line with a hash of their summary", () => {
    const record = {
      event: "tool_call_intent",
      call: 2,
      tool: "send_keys_batch",
      arguments: { operations: Array.from({ length: 32 }, () => "x".repeat(200)) }
    }
    const line = auditLine(record)
    assert.isAtMost(bytes(line), maxAuditLineBytes)
    const parsed = JSON.parse(line)
    assert.strictEqual(parsed.tool, "send_keys_batch")
    assert.deepStrictEqual(Object.keys(parsed.arguments), ["cut", "length", "sha256"])
  })

  it("stays within 4,096 bytes whatever the caller's strings hold (long, multi-byte, control characters)", () => {
    for (const unit of ["a", "\u0001", "\u{1F600}", "é\"\\"]) {
      const long = unit.repeat(5000)
      const record = {
        event: "tool_call_rejected",
        instance: "4242.99.4026531836",
        call: 3,
        tool: long,
        client_id: long,
        request_id: long,
        targets: Array.from({ length: 500 }, () => long),
        arguments: { keys: long }
      }
      const line = auditLine(record)
      assert.isAtMost(bytes(line), maxAuditLineBytes, JSON.stringify(unit))
      assert.strictEqual(line.indexOf("\n"), line.length - 1)
      assert.strictEqual(JSON.parse(line).event, "tool_call_rejected")
      // Cut to its last form, the line still names its process.
      assert.strictEqual(JSON.parse(line).instance, "4242.99.4026531836")
    }
  })
})

describe("summarizeBatchArguments", () => {
  const secret = Buffer.alloc(32, 7)
  const acceptance = { sinks: { operations: "tmux-lookup", onError: "none" }, refused: new Set<string>() } as const
  const sinksOf = (tool: unknown) => tool === "get_pane_info" ? { pane_id: "tmux-lookup" } as const : {}
  const isToolName = (name: string) => name === "get_pane_info"

  it("redacts each operation's arguments by the parameters of the tool it names, names included", () => {
    const summary = summarizeBatchArguments(secret, acceptance, sinksOf, isToolName, {
      onError: "continue",
      operations: [
        { tool: "get_pane_info", arguments: { pane_id: "%1", note: "SECRET" } },
        { tool: "no_such_tool SECRET", arguments: { text: "SECRET" }, extra: "SECRET" },
        "SECRET"
      ]
    }) as any
    assert.notInclude(JSON.stringify(summary), "SECRET")
    assert.notInclude(JSON.stringify(summary), "note")
    assert.strictEqual(summary.onError, "continue")
    assert.strictEqual(summary.operations[0].tool, "get_pane_info")
    assert.strictEqual(summary.operations[0].arguments.pane_id, "%1")
    assert.deepStrictEqual(Object.keys(summary.operations[0].arguments[unknownPropertiesKey][0]), ["name", "value"])
    assert.strictEqual(summary.operations[1].tool, "(unknown)")
    assert.deepStrictEqual(Object.keys(summary.operations[1].tool_digest), ["length", "hmac"])
  })
})
