/**
 * The quit advice by name (issue 58): vi and vim by any of their names or executables leave with
 * Escape then `:q!`, nano with C-x; an unknown full-screen program is told its key depends on it;
 * the other kinds keep their keys. The e2e test (test/e2e/quit-advice.test.ts) follows it.
 */
import { assert, describe, it } from "vitest"
import { knownWay, quitAdvice } from "../../src/domain/quitAdvice.ts"

describe("quitAdvice", () => {
  it("knows vi and vim by their command or executable names, nano, top", () => {
    for (const names of [["vi"], ["vim"], ["editor", "vim.basic"], ["nvim"], ["vi", "vim.tiny"]]) {
      assert.deepStrictEqual(knownWay(names)?.steps, [{ key: "Escape" }, { line: ":q!" }], names.join(" "))
    }
    assert.deepStrictEqual(knownWay(["editor", "nano"])?.steps, [{ key: "C-x" }])
    assert.deepStrictEqual(knownWay(["top", undefined])?.steps, [{ key: "q" }])
    assert.isUndefined(knownWay(["editor", undefined]))
    assert.isUndefined(knownWay(["python3", "python3.11"]))
  })

  it("says the steps for a resume's answers and for send_keys", () => {
    assert.strictEqual(
      quitAdvice("full-screen", ["vim"], "answer"),
      "answer_key \"Escape\", then answer \":q!\" (this leaves without saving; \":wq\" instead of \":q!\" saves)"
    )
    assert.match(
      quitAdvice("full-screen", ["vi"], "send_keys"),
      /^send_keys "Escape" with enter false, then send_keys ":q!" \(/u
    )
    assert.match(quitAdvice("full-screen", ["nano"], "answer"), /^answer_key "C-x" \(when it then asks/u)
  })

  it("does not claim a key for a full-screen program it does not know; the other kinds keep theirs", () => {
    const unknown = quitAdvice("full-screen", ["menu", undefined], "answer")
    assert.include(unknown, "which key depends on the program")
    assert.notInclude(unknown, "q or C-c")
    assert.strictEqual(quitAdvice("pager", ["less"], "answer"), "answer_key \"q\"")
    assert.strictEqual(quitAdvice("stdin", ["cat"], "answer"), "answer_key (C-d or C-c)")
    assert.strictEqual(
      quitAdvice("line-editor", ["python3"], "send_keys"),
      "send_keys with enter false (C-d, or its own exit command)"
    )
  })
})
