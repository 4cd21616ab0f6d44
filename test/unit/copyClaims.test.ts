/**
 * The copy lint on fixture pairs, both ways: affirmative claims are caught, the reviewed negative
 * and technical phrases pass, and only MIGRATION and CHANGES are exempt as files.
 */
import { assert, describe, it } from "vitest"
import { claimsIn, exempt } from "../../scripts/copyClaims.ts"

describe("copy lint", () => {
  const caught = [
    "Runs commands in a sandboxed shell.",
    "Three safety levels keep the agent in check.",
    "Choose a safety tier with LIBTMUX_SAFETY.",
    "Enable secure mode for production.",
    "Only safe commands are allowed.",
    "Provides containment for the agent.",
    "The socket confines what the agent can reach.",
    "No shell: commands cannot run."
  ]
  const passed = [
    "Tool filtering is not an OS sandbox and does not constrain other MCP tools.",
    "Tool selection shapes the interface; it is not an operating-system sandbox.",
    "This is not containment: every process of the same user can connect.",
    "Both coordinate instances; neither is containment.",
    "It does not confine what a process in a pane can do.",
    "Every invocation is an argv run directly (no shell), and no shell string is built.",
    "The exit status reaches tmux directly: no shell variable is assigned.",
    "the session that contains this server process"
  ]
  for (const text of caught) it(`catches: ${text}`, () => assert.isAbove(claimsIn(text).length, 0))
  for (const text of passed) it(`passes: ${text}`, () => assert.deepStrictEqual(claimsIn(text), []))

  it("exempts only MIGRATION and CHANGES among the documents", () => {
    assert.isTrue(exempt("MIGRATION.md"))
    assert.isTrue(exempt("docs/CHANGES.md"))
    assert.isFalse(exempt("README.md"))
    assert.isFalse(exempt("docs/trust-model.md"))
  })
})
