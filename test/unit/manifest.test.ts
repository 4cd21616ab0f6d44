/**
 * The manifest's own rules: inventory, the design's given rows, hint rules, openers, sinks.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "vitest"
import {
  mandatoryLines,
  manifest,
  openers,
  sinkKinds,
  type ToolName,
  toolNames,
  toolsOf,
  typesIntoPane
} from "../../src/manifest/index.ts"
import { reachesHostCommands } from "../../src/tools/define.ts"
import { registeredNames, registry } from "../../src/tools/index.ts"
import { version } from "../../src/version.ts"
import { nonDestructive } from "../support/additive.ts"

const rows = toolNames.map((name) => manifest[name])

describe("inventory", () => {
  it("has the design's 47 tools for the model in four toolsets of 18, 16, 9 and 4, and the pane view's own", () => {
    const forModel = (names: ReadonlyArray<ToolName>) => names.filter((name) => manifest[name].audience === "model")
    assert.strictEqual(forModel(toolNames).length, 47)
    assert.deepStrictEqual([
      forModel(toolsOf("inspect")).length,
      forModel(toolsOf("manage")).length,
      forModel(toolsOf("execute")).length,
      forModel(toolsOf("teardown")).length
    ], [18, 16, 9, 4])
    assert.deepStrictEqual(toolNames.filter((name) => manifest[name].audience === "app"), ["view_pane"])
  })

  it("keys every row by its own name, and titles every tool", () => {
    for (const name of toolNames) {
      assert.strictEqual(manifest[name].name, name)
      assert.isAbove(manifest[name].title.length, 0)
    }
  })

  it("takes exactly the design's values for the thirteen rows it gives", () => {
    const given: ReadonlyArray<
      [ToolName, string, ReadonlyArray<string>, string, ReadonlyArray<string>, [boolean, boolean, boolean, boolean]]
    > = [
      ["run_shell_command", "execute", ["change"], "pane-command", ["terminal-content"], [false, true, false, true]],
      ["send_keys", "execute", ["change"], "pane-input", ["tmux-metadata"], [false, true, false, true]],
      ["create_window", "execute", ["change"], "configured-process", ["tmux-metadata"], [false, false, false, true]],
      ["respawn_pane", "execute", ["change", "delete"], "pane-command", ["tmux-metadata"], [false, true, false, true]],
      ["set_synchronize_panes", "execute", ["change"], "none", ["tmux-metadata"], [false, true, true, true]],
      ["rename_window", "manage", ["change"], "none", ["tmux-metadata"], [false, true, true, false]],
      ["set_history_limit", "manage", ["change"], "none", ["tmux-metadata"], [false, true, true, false]],
      ["clear_pane_scrollback", "teardown", ["delete"], "none", ["tmux-metadata"], [false, true, false, false]],
      ["kill_session", "teardown", ["delete"], "none", ["tmux-metadata"], [false, true, false, false]],
      ["capture_pane", "inspect", ["observe"], "none", ["terminal-content"], [true, false, true, true]],
      ["snapshot_pane", "inspect", ["observe"], "none", ["terminal-content", "tmux-metadata"], [
        true,
        false,
        true,
        true
      ]],
      ["show_environment", "inspect", ["observe"], "none", ["process-environment"], [true, false, true, false]],
      ["get_tmux_variables", "inspect", ["observe"], "none", ["tmux-metadata", "configured-command"], [
        true,
        false,
        true,
        false
      ]]
    ]
    for (const [name, toolset, effect, reach, output, hints] of given) {
      const row = manifest[name]
      assert.deepStrictEqual(
        [row.toolset, row.effect, row.reach, row.output, [
          row.hints.readOnly,
          row.hints.destructive,
          row.hints.idempotent,
          row.hints.openWorld
        ]],
        [toolset, effect, reach, output, hints],
        name
      )
    }
    assert.isTrue(manifest.set_synchronize_panes.amplifiesFutureInput)
  })

  it("gives no tool an authority whose grammar admits a command that runs on the host", () => {
    for (const row of rows) assert.isFalse(reachesHostCommands(row), row.name)
  })
})

describe("hint rules", () => {
  it("makes every inspect tool readOnly with reach none and every readOnly tool an inspect tool", () => {
    for (const row of rows) {
      assert.strictEqual(row.hints.readOnly, row.toolset === "inspect", row.name)
      if (row.toolset === "inspect") {
        assert.strictEqual(row.reach, "none", row.name)
        assert.deepStrictEqual(row.effect, ["observe"], row.name)
      }
    }
  })

  it("makes pane-input and pane-command tools destructive, not idempotent and open-world", () => {
    for (const row of rows.filter((r) => r.reach === "pane-input" || r.reach === "pane-command")) {
      assert.deepStrictEqual(
        [row.hints.destructive, row.hints.idempotent, row.hints.openWorld],
        [true, false, true],
        row.name
      )
    }
  })

  it("makes teardown destructive and closed-world, every non-inspect tool except additive spawns destructive", () => {
    for (const row of rows) {
      if (row.toolset === "teardown") {
        assert.deepStrictEqual([row.hints.destructive, row.hints.openWorld], [true, false], row.name)
      }
      if (row.toolset !== "inspect") {
        assert.strictEqual(row.hints.destructive, row.reach !== "configured-process", row.name)
      }
    }
  })

  it("marks every tool that returns terminal content open-world, secret-bearing and untrusted", () => {
    for (const row of rows.filter((r) => (r.output as ReadonlyArray<string>).includes("terminal-content"))) {
      assert.deepStrictEqual([row.hints.openWorld, row.mayExposeSecrets, row.mayReturnUntrustedContent], [
        true,
        true,
        true
      ], row.name)
    }
  })
})

it("links every destructiveHint false to a test that shows the tool observational or additive", () => {
  const nonDestructiveTools = toolNames.filter((name) => !manifest[name].hints.destructive)
  assert.deepStrictEqual(Object.keys(nonDestructive).sort(), [...nonDestructiveTools].sort())
  for (const name of nonDestructiveTools) {
    assert.strictEqual(
      nonDestructive[name]!.kind,
      manifest[name].toolset === "inspect" ? "observational" : "additive",
      name
    )
  }
})

it("puts each setter's mandatory line in its description", () => {
  for (const [name, line] of Object.entries(mandatoryLines)) {
    assert.include(registry[name as ToolName].description, line, name)
  }
})

describe("openers", () => {
  const expectedOpener = (name: ToolName): string => {
    const row = manifest[name]
    const output = row.output as ReadonlyArray<string>
    if (row.toolset === "inspect") {
      if (output.includes("terminal-content")) return "inspect-pane-output"
      if (output.includes("process-environment")) return "inspect-environment"
      if (output.includes("configured-command")) return "inspect-configuration"
      return "inspect-metadata"
    }
    if (row.toolset === "teardown") return "teardown"
    return {
      "none": "manage",
      "configured-process": "spawn",
      "pane-input": "pane-input",
      "pane-command": "pane-command"
    }[row.reach]
  }

  it("derives each row's opener from its toolset, reach and worst output class", () => {
    for (const name of toolNames) assert.strictEqual(manifest[name].opener, expectedOpener(name), name)
  })

  it("starts every registered description with its opener, exactly", () => {
    for (const definition of Object.values(registry)) {
      assert.isTrue(definition.description.startsWith(`${openers[definition.row.opener]} `), definition.row.name)
    }
  })
})

describe("sinks and batch eligibility", () => {
  it(
    "gives every registered tool a sink column of known " +
      "kinds, and no inspect tool an executable or format sink",
    () => {
      for (const name of registeredNames) {
        const sinks = manifest[name].sinks
        assert.isNotNull(sinks, name)
        for (const kind of Object.values(sinks ?? {})) {
          assert.include(sinkKinds, kind, name)
          if (manifest[name].toolset === "inspect") {
            assert.notInclude(["pane-input", "shell-command", "process-argv", "tmux-format"], kind, name)
          }
        }
      }
    }
  )

  it(
    "makes the batch-eligible set the inspect tools minus " +
      "the batch, the self-bounded tools, show_environment and the pane view's poll",
    () => {
      const eligible = toolNames.filter((name) => manifest[name].batchEligible)
      // The pane view's poll is its page's, not the model's: a batch does not carry it.
      const expected = toolsOf("inspect").filter((name) =>
        name !== "call_read_tools_batch" && !manifest[name].selfBounded && name !== "show_environment" &&
        name !== "view_pane"
      )
      assert.deepStrictEqual(eligible, expected)
    }
  )
})

describe("self-input guard", () => {
  it("covers every row that types into a pane, and leaves respawn_pane to its kill guard", () => {
    const guarded = toolNames.filter((name) => typesIntoPane(manifest[name]))
    assert.deepStrictEqual(guarded, ["run_shell_command", "send_keys", "send_keys_batch", "paste_text"])
    const reaching = toolNames.filter((name) => ["pane-input", "pane-command"].includes(manifest[name].reach))
    assert.deepStrictEqual(reaching.filter((name) => !guarded.includes(name)), ["respawn_pane"])
  })

  it("guards rows that name their panes by pane ID only, the IDs it checks", () => {
    for (const name of toolNames.filter((name) => typesIntoPane(manifest[name]))) {
      const targets = Object.keys(manifest[name].sinks).filter((key) => /^(session|window)_/u.test(key))
      assert.deepStrictEqual(targets, [], name)
    }
  })
})

it("keeps src/version.ts equal to package.json's version", () => {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }
  assert.strictEqual(version, pkg.version)
})
