/**
 * The hidden-target guard of an instance without a connection (domain/hiddenTargets.ts): the IDs a
 * command list names, one guard per ID with the scope its kind takes, and the refusal read back.
 */
import { assert, describe, it } from "@effect/vitest"
import { hiddenGuards, namedIds, notFoundText, refusedId } from "../../src/domain/hiddenTargets.ts"
import { controlSessionPrefix, marks, paneRunOptions } from "../../src/domain/protocolNames.ts"

describe("hiddenTargets", () => {
  it("finds the IDs a list names as targets or sources, and nothing else", () => {
    const commands = [
      ["capture-pane", "-p", "-t", "%5"],
      ["join-pane", "-s", "@3", "-t", "$2:1.0"],
      ["select-window", "-t", "=work:2"],
      ["display-message", "-p", "%9"],
      ["send-keys", "-t"]
    ]
    assert.deepStrictEqual(namedIds(commands), [
      { id: "%5", command: "capture-pane" },
      { id: "@3", command: "join-pane" },
      { id: "$2", command: "join-pane" }
    ])
  })

  it("guards each ID once, in the scope of its kind, with nothing to guard when no ID is named", () => {
    const guards = hiddenGuards([["capture-pane", "-t", "%5"], ["select-pane", "-t", "%5"], [
      "kill-window",
      "-t",
      "@3"
    ]])
    assert.deepStrictEqual(guards.map((guard) => guard.slice(0, 4)), [
      ["set-option", "-pu", "-t", "%5"],
      ["set-option", "-wu", "-t", "@3"]
    ])
    const format = guards[0]!.at(-1)!
    assert.include(format, `#{m:${controlSessionPrefix}*,#{session_name}}`)
    assert.include(format, `${marks.hiddenTarget}:%5`)
    assert.isTrue(format.endsWith(`,${paneRunOptions.none}}`), "a visible object unsets an option nothing sets")
    assert.deepStrictEqual(hiddenGuards([["list-sessions", "-F", "#{session_id}"]]), [])
    assert.deepStrictEqual(hiddenGuards([["kill-session", "-t", "$4"]])[0]!.slice(0, 4), [
      "set-option",
      "-u",
      "-t",
      "$4"
    ])
  })

  it("reads a guard's refusal back to the ID, and nothing else as one", () => {
    assert.strictEqual(refusedId(`invalid option: ${marks.hiddenTarget}:%5`), "%5")
    assert.isUndefined(refusedId("invalid option: @something"))
    assert.isUndefined(refusedId("can't find pane: %5"))
    assert.strictEqual(notFoundText("%5"), "can't find pane: %5")
    assert.strictEqual(notFoundText("@3"), "can't find window: @3")
    assert.strictEqual(notFoundText("$2"), "can't find session: $2")
  })
})
