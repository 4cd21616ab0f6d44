/** A misspelt LIBTMUX_* variable gets a warning naming the variable it was probably meant to be. */
import { assert, it } from "vitest"
import { settings, unknownSettingWarnings } from "../../src/domain/config.ts"
import { editDistance, nearest } from "../../src/domain/unknownVariables.ts"

const variables = settings.map((setting) => setting.variable)

it("names the nearest real variable for common slips", () => {
  for (
    const [slip, meant] of [
      ["LIBTMUX_WAIT_MAX_SECONDS", "LIBTMUX_MCP_WAIT_MAX_SECONDS"],
      ["LIBTMUX_TOOLSET", "LIBTMUX_TOOLSETS"],
      ["LIBTMUX_SOCKETS", "LIBTMUX_SOCKET"],
      ["LIBTMUX_EXCLUDE_TOOL", "LIBTMUX_EXCLUDE_TOOLS"],
      ["LIBTMUX_AUDITLOG", "LIBTMUX_AUDIT_LOG"],
      ["LIBTMUX_TMUXBIN", "LIBTMUX_TMUX_BIN"]
    ] as const
  ) {
    assert.strictEqual(nearest(slip, variables), meant, slip)
  }
  assert.strictEqual(editDistance("kitten", "sitting"), 3)
  assert.strictEqual(editDistance("", "abc"), 3)
})

it("warns once per unknown LIBTMUX_ variable, and never for a known, a retired or another prefix", () => {
  const warnings = unknownSettingWarnings({
    LIBTMUX_WAIT_MAX_SECONDS: "60",
    LIBTMUX_TOOLSETS: "inspect",
    LIBTMUX_SAFETY: "readonly",
    TMUX_TMPDIR: "/tmp",
    LIBTMUX: "x"
  })
  assert.deepStrictEqual(warnings, [
    "libtmux-mcp warning: variable=LIBTMUX_WAIT_MAX_SECONDS note=\"libtmux-mcp does not read " +
    "LIBTMUX_WAIT_MAX_SECONDS, so it has no effect; did you mean LIBTMUX_MCP_WAIT_MAX_SECONDS?\""
  ])
})
