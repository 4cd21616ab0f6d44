/**
 * The completion protocol's pure parts: what is typed for each shell family, and how the output is
 * cut out of captured rows (wrapped lines, a partial last row, wide characters, a lost start).
 */
import { assert, describe, it } from "vitest"
import { commandProblem, extractOutput, parseEndRecord, shellKind, typedText } from "../../src/domain/shellProtocol.ts"

describe("typedText", () => {
  const base = { command: "echo hi", id: "abc123", paneId: "%4", tmuxPath: "/usr/bin/tmux", socketPath: "/tmp/tmux-0/x", suppressHistory: true, markStart: false }

  it("wraps a POSIX command in a subshell and passes $? straight to tmux, assigning no variable", () => {
    const text = typedText({ ...base, kind: "posix" })
    assert.strictEqual(text.split("\n")[0], " (")
    assert.strictEqual(text.split("\n")[1], "echo hi")
    assert.match(text.split("\n")[2]!, /^\); \/usr\/bin\/tmux -S \/tmp\/tmux-0\/x if -F '#\{@lmcp_w_abc123\}' "set -pF -t %4 @lmcp_e_abc123 '#\{history_size\} #\{cursor_y\} #\{cursor_x\} \$\?' ; wait-for -S lmcp_abc123"$/)
    assert.notMatch(text, /\w=\$\?/)
  })

  it("uses begin/end and $status for fish, and no leading space without history suppression", () => {
    const text = typedText({ ...base, kind: "fish", suppressHistory: false })
    assert.isTrue(text.startsWith("begin\necho hi\nend; "))
    assert.include(text, "$status'")
  })

  it("marks where output starts for shells that do not edit their own input line", () => {
    const text = typedText({ ...base, kind: "posix", markStart: true })
    assert.match(text.split("\n")[0]!, /^ \/usr\/bin\/tmux -S \/tmp\/tmux-0\/x if -F '#\{@lmcp_w_abc123\}' "set -pF -t %4 @lmcp_s_abc123 '#\{history_size\} #\{cursor_y\} #\{cursor_x\}'"; \($/)
  })

  it("knows the shells it can drive", () => {
    assert.strictEqual(shellKind("bash"), "posix")
    assert.strictEqual(shellKind("dash"), "posix")
    assert.strictEqual(shellKind("fish"), "fish")
    assert.isUndefined(shellKind("nu"))
    assert.isUndefined(shellKind("vim"))
  })

  it("refuses empty commands and control characters other than newline and tab", () => {
    assert.isString(commandProblem("  "))
    assert.isString(commandProblem("echo \r"))
    assert.isUndefined(commandProblem("printf 'a\\tb'\n\techo done"))
  })
})

describe("extractOutput", () => {
  const echo = ["$  (", "> echo hi", "> ); tmux … wait-for -S lmcp_tok\""]

  it("returns only the rows after the echoed trailer, up to the end position", () => {
    const rows = [...echo, "hi", "$ "]
    const result = extractOutput(rows, rows, "tok", 4, 0)
    assert.deepStrictEqual(result, { lines: ["hi"], startFound: true })
  })

  it("cuts a partial last row at the cursor column, dropping the prompt drawn after it", () => {
    const rows = [...echo, "abc$ "]
    assert.deepStrictEqual(extractOutput(rows, rows, "tok", 3, 3).lines, ["abc"])
  })

  it("joins wrapped rows back into one line", () => {
    const rows = [...echo, "0123456789", "abcdef", "$ "]
    const joined = [...echo, "0123456789abcdef", "$ "]
    assert.deepStrictEqual(extractOutput(rows, joined, "tok", 5, 0).lines, ["0123456789abcdef"])
  })

  it("finds the start after a trailer that wrapped over several rows", () => {
    const rows = ["$  (", "> echo hi", "> ); tmux … wait-", "for -S lmcp_tok\"", "hi", "$ "]
    const joined = ["$  (", "> echo hi", "> ); tmux … wait-for -S lmcp_tok\"", "hi", "$ "]
    assert.deepStrictEqual(extractOutput(rows, joined, "tok", 5, 0).lines, ["hi"])
  })

  it("counts wide characters as two cells when cutting", () => {
    const rows = [...echo, "日本語$ "]
    assert.deepStrictEqual(extractOutput(rows, rows, "tok", 3, 6).lines, ["日本語"])
  })

  it("reports an output with nothing in it as no lines", () => {
    const rows = [...echo, "$ "]
    assert.deepStrictEqual(extractOutput(rows, rows, "tok", 3, 0).lines, [])
  })

  it("starts at a marked position when the shell marked it, even mid-row after continuation prompts", () => {
    const rows = ["$  (", "echo hi", "); trailer", "> > hi", "$ "]
    assert.deepStrictEqual(extractOutput(rows, rows, "absent", 4, 0, { row: 3, column: 4 }).lines, ["hi"])
    const silent = ["$  (", "true", "); trailer", "> > $ "]
    assert.deepStrictEqual(extractOutput(silent, silent, "absent", 3, 4, { row: 3, column: 4 }).lines, [])
  })

  it("says when the start was trimmed away, and returns what is left", () => {
    const rows = ["late output", "last line", "$ "]
    assert.deepStrictEqual(extractOutput(rows, rows, "tok", 2, 0), { lines: ["late output", "last line"], startFound: false })
  })
})

it("parses the trailer's end record", () => {
  assert.deepStrictEqual(parseEndRecord("120 5 3 2"), { historySize: 120, cursorY: 5, cursorX: 3, status: 2 })
  assert.isUndefined(parseEndRecord(""))
})
