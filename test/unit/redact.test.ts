/**
 * Issue 23, item 2: what the tool's schema did not accept is digested in the audit summary, names
 * included; what it accepted stays readable.
 */
import { assert, describe, it } from "vitest"
import { summarizeArguments, toolNameOf, unknownPropertiesKey } from "../../src/domain/redact.ts"

const secret = Buffer.alloc(32, 9)
const sinks = { pane_id: "tmux-lookup", command: "shell-command", timeout: "none" } as const

describe("the audit summary of a call's arguments", () => {
  it("digests a refused payload whole, `_id` keys inside it included", () => {
    const summary = summarizeArguments(secret, { sinks, refused: new Set(["command"]) }, {
      pane_id: "%1",
      command: { token_id: "SECRET-9" }
    }) as any
    assert.notInclude(JSON.stringify(summary), "SECRET-9")
    assert.notInclude(JSON.stringify(summary), "token_id")
    assert.strictEqual(summary.pane_id, "%1")
    assert.deepStrictEqual(Object.keys(summary.command), ["length", "hmac"])
  })

  it("digests the names and values of properties the tool does not take", () => {
    const summary = summarizeArguments(secret, { sinks, refused: new Set() }, {
      pane_id: "%1",
      "export AWS_SECRET_ACCESS_KEY=SECRET-9": true
    }) as any
    assert.notInclude(JSON.stringify(summary), "AWS_SECRET")
    assert.strictEqual(summary.pane_id, "%1")
    assert.strictEqual(summary[unknownPropertiesKey][0].name.length, "export AWS_SECRET_ACCESS_KEY=SECRET-9".length)
  })

  it("digests every value when the arguments were refused as a whole, and keeps known names", () => {
    const summary = summarizeArguments(secret, { sinks, refused: "all" }, { pane_id: "SECRET-9", timeout: 5 }) as any
    assert.notInclude(JSON.stringify(summary), "SECRET-9")
    assert.deepStrictEqual(Object.keys(summary).sort(), ["pane_id", "timeout"])
  })

  it("keeps accepted values readable and digests only payloads", () => {
    const summary = summarizeArguments(secret, { sinks, refused: new Set() }, {
      pane_id: "%1",
      command: "echo SECRET-9",
      timeout: 5
    }) as any
    assert.deepInclude(summary, { pane_id: "%1", timeout: 5 })
    assert.notInclude(JSON.stringify(summary), "SECRET-9")
  })

  it("shows an unknown tool's name only as a digest", () => {
    const isToolName = (name: string) => name === "list_sessions"
    assert.deepStrictEqual(toolNameOf(secret, "list_sessions", isToolName), { tool: "list_sessions" })
    const unknown = toolNameOf(secret, "export AWS_SECRET_ACCESS_KEY=SECRET-9", isToolName)
    assert.strictEqual(unknown.tool, "(unknown)")
    assert.notInclude(JSON.stringify(unknown), "SECRET")
  })
})
