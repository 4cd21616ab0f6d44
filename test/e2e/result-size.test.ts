/**
 * Results a client shows whole: the tools that return terminal text declare that their result may
 * take 500,000 characters (`_meta["anthropic/maxResultSizeChars"]`, which Claude Code reads), and
 * their result stays within it whatever max_bytes allows, saying what was cut.
 */
import { assert, describe, it } from "vitest"
import { manifest, type ToolName } from "../../src/manifest/index.ts"
import { maxResultSizeKey } from "../../src/wire/McpServer.ts"
import { call, structured, textOf } from "../support/mcp.ts"
import { run, runHarness } from "../support/runs.ts"

const { open } = runHarness("resultsize", { inProcess: true })

describe.concurrent("the size of a result", () => {
  it("is at most 110 bytes for a run of true: fields at their usual value are left out", async () => {
    const { c, pane } = await open()
    const result = await call(c, "run_shell_command", { pane_id: pane, command: "true" })
    const text = JSON.stringify(structured(result))
    assert.isAtMost(Buffer.byteLength(text), 110, text)
    assert.deepStrictEqual(Object.keys(structured(result)).sort(), [
      "elapsed_seconds",
      "exit_status",
      "output",
      "pane_id",
      "shell"
    ])
    assert.strictEqual(textOf(result), text)
  })

  it("is declared as 500,000 characters by exactly the tools whose output holds terminal content", async () => {
    const { c } = await open()
    const declared = (await c.client.listTools()).tools
      .filter((tool) => tool._meta?.[maxResultSizeKey] !== undefined)
      .map((tool) => [tool.name, tool._meta?.[maxResultSizeKey]])
    const terminal = Object.values(manifest).filter((row) =>
      row.audience === "model" && (row.output as ReadonlyArray<string>).includes("terminal-content")
    )
      .map((row) => [row.name as ToolName, 500_000])
    assert.deepStrictEqual(declared, terminal)
    assert.includeMembers(declared.map(([name]) => name), ["run_shell_command", "capture_pane", "search_panes"])
  })

  it("stays within 500,000 characters for a 3 MB output at max_bytes' maximum, and counts what it cut", async () => {
    const { c, pane } = await open()
    // 38,000 rows of 78 digits: 3,002,000 bytes, each row within the 80-column pane.
    const result = await call(c, "run_shell_command", {
      pane_id: pane,
      command: "yes \"$(printf '%078d' 7)\" | head -n 38000",
      max_lines: 100_000,
      max_bytes: 4 * 1024 * 1024,
      timeout: 60
    }, { timeout: 90_000 })
    const answer = structured(result)
    assert.isAtMost(textOf(result).length, 500_000)
    assert.isAtMost(JSON.stringify(result.structuredContent).length, 500_000)
    const lines = String(answer.output).split("\n")
    assert.strictEqual(answer.exit_status, 0)
    assert.isAbove(answer.truncated_bytes, 2_000_000)
    assert.strictEqual(answer.truncated_bytes + Buffer.byteLength(answer.output) + 1, 38_000 * 79)
    assert.strictEqual(answer.truncated_lines + lines.length, 38_000)
    assert.deepStrictEqual([...new Set(lines)], ["0".repeat(77) + "7"])
    // The same pane read back by capture_pane is cut the same way.
    const captured = await call(c, "capture_pane", {
      pane_id: pane,
      start: -50_000,
      max_lines: 100_000,
      max_bytes: 4 * 1024 * 1024
    })
    assert.isAtMost(textOf(captured).length, 500_000)
    assert.isAbove(structured(captured).truncated_bytes, 2_000_000)
    assert.deepInclude(await run(c, pane, "echo still-serving"), { output: "still-serving" })
  })
})
