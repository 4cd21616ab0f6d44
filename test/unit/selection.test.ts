/**
 * The selection rules of tool-selection.md, one test each, and every row of the defaults table.
 */
import * as Result from "effect/Result"
import { assert, describe, it } from "vitest"
import {
  defaultToolsets,
  type EndpointFacts,
  resolveSelection,
  type SelectionInput,
  splitList
} from "../../src/domain/selection.ts"
import { manifest, type ToolName, toolNames, type Toolset, toolsets } from "../../src/manifest/index.ts"

const all = new Set<ToolName>(toolNames)
const dedicatedNew: EndpointFacts = {
  socketExplicit: false,
  tmuxConfig: "minimal",
  serverState: "absent",
  provenance: "none"
}
const input = (partial: Partial<SelectionInput>): SelectionInput => ({
  toolsets: undefined,
  tools: undefined,
  excludeTools: undefined,
  ...partial
})

const select = (partial: Partial<SelectionInput>, facts = dedicatedNew, available: ReadonlySet<ToolName> = all) => {
  const result = resolveSelection(input(partial), facts, available)
  if (Result.isFailure(result)) throw new Error(result.failure.message)
  return result.success
}
const failure = (partial: Partial<SelectionInput>, available: ReadonlySet<ToolName> = all): string => {
  const result = resolveSelection(input(partial), dedicatedNew, available)
  assert.isTrue(Result.isFailure(result), JSON.stringify(partial))
  return Result.isFailure(result) ? result.failure.message : ""
}
const inToolsets = (chosen: ReadonlyArray<Toolset>) =>
  toolNames.filter((name) => chosen.includes(manifest[name].toolset))

describe("groups", () => {
  it("produces exactly the member tools, in manifest order, for all sixteen toolset combinations", () => {
    for (let mask = 0; mask < 16; mask++) {
      const chosen = toolsets.filter((_, i) => (mask & (1 << i)) !== 0)
      // Written in reverse to show the order is the manifest's, not the variable's.
      const selection = select({ toolsets: [...chosen].reverse().join(",") })
      assert.deepStrictEqual(selection.tools, inToolsets(chosen), chosen.join(","))
      assert.deepStrictEqual(selection.toolsets, chosen)
      assert.isNull(selection.defaultApplied)
    }
  })

  it("selects no groups for an entirely empty value, and trims whitespace around valid tokens", () => {
    assert.deepStrictEqual(select({ toolsets: "" }).tools, [])
    assert.deepStrictEqual(select({ toolsets: " inspect , teardown " }).tools, inToolsets(["inspect", "teardown"]))
  })

  it("rejects empty segments, unknown names and other cases, naming the valid set", () => {
    for (const value of ["inspect,,manage", ",inspect", "inspect,", " , "]) {
      assert.include(failure({ toolsets: value }), "empty segment")
    }
    for (const value of ["Inspect", "readonly", "inspect,all"]) {
      assert.include(failure({ toolsets: value }), "valid toolsets: inspect, manage, execute, teardown")
    }
  })
})

describe("named tools", () => {
  it("adds inclusions after the groups and applies exclusions last, even over an inclusion", () => {
    assert.deepStrictEqual(select({ toolsets: "", tools: "list_windows,list_sessions" }).tools, [
      "list_sessions",
      "list_windows"
    ])
    const mixed =
      select({ toolsets: "inspect", tools: "kill_session", excludeTools: "kill_session,show_environment" }).tools
    assert.notInclude(mixed, "kill_session")
    assert.notInclude(mixed, "show_environment")
    assert.include(mixed, "list_sessions")
  })

  it("rejects explicitly empty LIBTMUX_TOOLS and LIBTMUX_EXCLUDE_TOOLS", () => {
    assert.include(failure({ tools: "" }), "LIBTMUX_TOOLS is set but empty")
    assert.include(failure({ excludeTools: "  " }), "LIBTMUX_EXCLUDE_TOOLS is set but empty")
  })

  it("rejects unknown and case-changed tool names, naming the valid set", () => {
    assert.include(failure({ tools: "List_sessions" }), "valid tools: list_sessions")
    assert.include(failure({ excludeTools: "kill_server" }), "unknown tool(s) kill_server")
  })

  it("says so when a manifest tool is not in this build", () => {
    const partial = new Set<ToolName>(["list_sessions"])
    assert.include(failure({ tools: "capture_pane" }, partial), "does not have yet")
    assert.deepStrictEqual(select({ toolsets: "inspect" }, dedicatedNew, partial).tools, ["list_sessions"])
  })
})

describe("defaults when LIBTMUX_TOOLSETS is absent", () => {
  const rows: ReadonlyArray<[EndpointFacts, ReadonlyArray<Toolset>, string]> = [
    [
      { socketExplicit: false, tmuxConfig: "minimal", serverState: "absent", provenance: "none" },
      toolsets,
      "new dedicated server, minimal configuration"
    ],
    [{ socketExplicit: false, tmuxConfig: "minimal", serverState: "existing", provenance: "unknown" }, [
      "inspect",
      "manage",
      "execute"
    ], "existing server of unknown provenance"],
    [{ socketExplicit: false, tmuxConfig: "minimal", serverState: "existing", provenance: "recorded-other" }, [
      "inspect",
      "manage",
      "execute"
    ], "existing server of unknown provenance"],
    [
      { socketExplicit: false, tmuxConfig: "minimal", serverState: "existing", provenance: "recorded-minimal" },
      toolsets,
      "existing dedicated server recorded as started by libtmux-mcp with the minimal configuration"
    ],
    [{ socketExplicit: true, tmuxConfig: "minimal", serverState: "absent", provenance: "none" }, [
      "inspect",
      "manage",
      "execute"
    ], "explicitly configured endpoint"],
    [{ socketExplicit: true, tmuxConfig: "minimal", serverState: "existing", provenance: "recorded-minimal" }, [
      "inspect",
      "manage",
      "execute"
    ], "explicitly configured endpoint"],
    [{ socketExplicit: false, tmuxConfig: "user", serverState: "absent", provenance: "none" }, [
      "inspect",
      "manage",
      "execute"
    ], "explicitly configured endpoint"],
    [{ socketExplicit: false, tmuxConfig: "path", serverState: "existing", provenance: "unknown" }, [
      "inspect",
      "manage",
      "execute"
    ], "explicitly configured endpoint"]
  ]
  it("follows every row of the defaults table and reports the reason", () => {
    for (const [facts, expected, reason] of rows) {
      assert.deepStrictEqual(defaultToolsets(facts), { toolsets: expected, reason }, JSON.stringify(facts))
      const selection = select({}, facts)
      assert.deepStrictEqual(selection.tools, inToolsets(expected))
      assert.deepStrictEqual(selection.defaultApplied?.reason, reason)
    }
  })

  it("still applies inclusions and exclusions on top of the default", () => {
    const selection = select({ excludeTools: "kill_session" })
    assert.notInclude(selection.tools, "kill_session")
    assert.isNotNull(selection.defaultApplied)
  })
})

it("splits lists on commas only", () => {
  assert.deepStrictEqual(Result.getOrThrow(splitList("X", "a, b ,c")), ["a", "b", "c"])
})
