/**
 * The completion protocol's pure parts: what is typed for each shell family (and how little of it a
 * person sees), where the echo of the typed input ends, and how the output is cut out of captured
 * rows (wrapped lines, a partial last row, wide characters, trailing spaces, a marked start).
 */
import { prop } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { assert, describe, it } from "vitest"
import { runIdPattern } from "../../src/domain/protocolNames.ts"
import { extractOutput, parseEndRecord } from "../../src/domain/runPositions.ts"
import { findEchoEnd } from "../../src/domain/runStart.ts"
import { templates } from "../../src/domain/runTemplates.ts"
import {
  commandProblem,
  hasErrexit,
  hasVerbose,
  lineTooLong,
  needsStartMark,
  shellFlagsOf,
  shellKind,
  showsPrompt,
  trailerLine,
  typedText
} from "../../src/domain/shellProtocol.ts"

const reach = { bin: "/usr/bin/tmux", socketPath: "/tmp/tmux-0/libtmux-mcp", shellKnowsSocket: true }
const base = {
  command: "echo hi",
  runId: "a1b2c3",
  paneId: "%4",
  reach,
  suppressHistory: false,
  markStart: false,
  inShell: false,
  errexit: false
}

/** What a person sees typed besides the command itself. */

describe("typedText", () => {
  it("wraps a POSIX command in a subshell and passes $? straight to tmux, assigning no variable", () => {
    const text = typedText({ ...base, kind: "posix" })
    assert.strictEqual(text, `( echo hi\n); { command /usr/bin/tmux run -t%4 -C "#{@la1b2c3}$?'";} 2>/dev/null`)
    assert.notMatch(text, /\w=\$\?/)
  })

  it("uses begin/end and $status for fish, whose tmux client finds the socket in TMUX", () => {
    const text = typedText({ ...base, kind: "fish" })
    assert.strictEqual(
      text,
      `begin; echo hi\nend; command /usr/bin/tmux run -t%4 -C "#{@la1b2c3}$status'"`
    )
  })

  it("types the socket path only when the shell's environment does not name the pinned socket", () => {
    const text = typedText({ ...base, kind: "posix", reach: { ...reach, shellKnowsSocket: false } })
    assert.include(text, "command /usr/bin/tmux -S /tmp/tmux-0/libtmux-mcp run")
    assert.notInclude(typedText({ ...base, kind: "posix" }), reach.socketPath)
  })

  it("runs tmux through command, so no shell function, even one named by its path, runs instead", () => {
    for (const kind of ["posix", "fish"] as const) {
      for (const markStart of [false, true]) {
        for (const shellKnowsSocket of [false, true]) {
          const text = typedText({ ...base, kind, markStart, reach: { ...reach, shellKnowsSocket } })
          const runs = text.match(/\S+ \/usr\/bin\/tmux /gu) ?? []
          assert.lengthOf(runs, markStart ? 2 : 1, text)
          for (const word of runs) assert.strictEqual(word, "command /usr/bin/tmux ", text)
        }
      }
    }
  })

  it("types a trailer line of at most 80 characters, no socket path, in every shell on a three-digit pane", () => {
    for (const kind of ["posix", "fish"] as const) {
      const text = typedText({ ...base, kind, paneId: "%123" })
      assert.isAtMost(text.split("\n").at(-1)!.length, 80, `${kind}: ${text}`)
      assert.notInclude(text, reach.socketPath)
    }
  })

  it("marks where output starts for shells that need it, before the subshell", () => {
    const text = typedText({ ...base, kind: "posix", markStart: true })
    assert.isTrue(text.startsWith(`{ command /usr/bin/tmux run -t%4 -C '#{@ma1b2c3}';} 2>/dev/null; ( echo hi\n`))
  })

  it("hands the exit status to the run's own template, through no option and never a server-wide one", () => {
    const typed = typedText({ ...base, kind: "posix", markStart: false })
    const { end } = templates("a1b2c3", "%4")
    for (const text of [typed, end]) assert.notMatch(text, /set -s|set-option -s|@x/u)
    // The status completes the record's quoted value: the record comes last, after the signal.
    assert.include(typed, `#{@la1b2c3}$?'"`)
    assert.isTrue(end.endsWith(`set-option -pF -t %4 @lmcp_end_a1b2c3 '#{history_size} #{cursor_y} #{cursor_x} `), end)
  })

  it("runs the protocol's own commands with their standard error, so xtrace's, in /dev/null", () => {
    for (const options of [{}, { markStart: true }, { inShell: true, markStart: true }, { errexit: true }]) {
      const text = typedText({ ...base, kind: "posix", ...options })
      const command = text.indexOf("echo hi")
      // Before the command and after it, every protocol command is inside a group sent to /dev/null.
      const outside = (part: string) => part.replace(/\{ .*?;\} 2>\/dev\/null/gu, "")
      assert.notMatch(outside(text.slice(0, command)), /tmux|set /u, text)
      assert.notMatch(outside(text.slice(command + "echo hi".length)), /tmux|set /u, text)
    }
  })

  it("keeps the trailer's template out of the typed text: the server stores it in the pane", () => {
    const { end, mark } = templates("a1b2c3", "%4")
    assert.strictEqual(
      end,
      `if-shell -F '#{m:copy-mode*,#{@la1b2c3}}' 'copy-mode -q -t %4 ; send-keys -t %4 C-c' ; ` +
        `set-option -pu -t %4 @lmcp_claim ; wait-for -S lmcp_a1b2c3 ; ` +
        `set-option -pF -t %4 @lmcp_end_a1b2c3 '#{history_size} #{cursor_y} #{cursor_x} `
    )
    assert.strictEqual(mark, `set-option -pF -t %4 @lmcp_start_a1b2c3 '#{history_size} #{cursor_y} #{cursor_x}'`)
  })

  it("runs an in-shell command in a brace group whose trailer leaves the shell's option letters on the pane", () => {
    const text = typedText({ ...base, kind: "posix", inShell: true })
    assert.strictEqual(
      text,
      `{ echo hi\n}; { command /usr/bin/tmux run -t%4 -C ` +
        `"set -pt%4 @lmcp_sh $$x$-;#{@la1b2c3}$?'";} 2>/dev/null`
    )
    // fish runs every command in the shell already, and has no errexit.
    assert.strictEqual(typedText({ ...base, kind: "fish", inShell: true }), typedText({ ...base, kind: "fish" }))
  })

  it("keeps a set -e the shell has from ending it when a subshell fails, and keeps it on inside and after", () => {
    const text = typedText({ ...base, kind: "posix", errexit: true })
    assert.isTrue(text.startsWith("{ set +e;} 2>/dev/null; ( { set -e;} 2>/dev/null; echo hi\n); "), text)
    assert.isTrue(text.endsWith(`'";set -e;} 2>/dev/null`), text)
    assert.isTrue(hasErrexit("xehimBH"))
    assert.isTrue(hasErrexit("x569XZei"))
    assert.isFalse(hasErrexit("xhimBH"))
    assert.isFalse(hasErrexit(""))
    assert.isTrue(hasVerbose("xhimvBH"))
    assert.isTrue(hasVerbose("x569XZilmsv"))
    assert.isFalse(hasVerbose("xhimBH"))
    assert.isFalse(hasVerbose(""))
    // Only while the shell that left them is the pane's process.
    assert.strictEqual(shellFlagsOf("4242xehimBH", 4242), "xehimBH")
    assert.strictEqual(shellFlagsOf("4242xehimBH", 4243), "")
    assert.strictEqual(shellFlagsOf("xehimBH", 4242), "")
  })

  it("tells the shell's prompt drawn again from a prompt of the command's own", () => {
    assert.isTrue(showsPrompt("bash-5.2$ ", "bash-5.2$ ", 10))
    // After an answered run the terminal's echo of its trailer's C-c stands before the prompt.
    assert.isTrue(showsPrompt("$ ", "^C$ ", 4))
    assert.isTrue(showsPrompt("^C$ ", "$ ", 2))
    assert.isFalse(showsPrompt("$ ", "^C$ read", 8))
    assert.isFalse(showsPrompt("bash-5.2$ ", "name? ", 6))
    assert.isFalse(showsPrompt("bash-5.2$ ", "bash-5.2$ ls", 10))
    assert.isFalse(showsPrompt("", "", 0))
    // A prompt that shows the directory, after a cd; fish's read prompt is not its prompt.
    assert.isTrue(showsPrompt("me@host:~$ ", "me@host:/tmp$ ", 14))
    assert.isFalse(showsPrompt("me@host ~> ", "read> ", 6))
    assert.isFalse(showsPrompt("$ ", "# ", 2))
  })

  it("restores the pane's remain-on-exit in the trailer of a run that kept the pane", () => {
    const { end } = templates("a1b2c3", "%4", true)
    assert.include(end, " ; set-option -pu -t %4 remain-on-exit ; set-option -pu -t %4 remain-on-exit-format ;")
    assert.include(end, "remain-on-exit-format ; wait-for -S lmcp_a1b2c3 ; set-option -pF -t %4 @lmcp_end_a1b2c3 ")
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

  it("marks the start for shells without a line editor, and for echoes taller than the pane", () => {
    const pane = { width: 80, height: 24 }
    assert.isTrue(needsStartMark("dash", "echo hi", pane))
    assert.isFalse(needsStartMark("bash", "echo hi", pane))
    assert.isTrue(needsStartMark("zsh", "x".repeat(80 * 22), pane))
    assert.isTrue(needsStartMark("fish", Array.from({ length: 30 }, () => "echo").join("\n"), pane))
  })

  it("refuses lines the terminal would cut short for shells that read it line by line", () => {
    assert.strictEqual(lineTooLong("dash", `echo hi\necho ${"二".repeat(1400)}`), 2)
    assert.isUndefined(lineTooLong("dash", "echo hi"))
    assert.isUndefined(lineTooLong("bash", "x".repeat(10_000)))
  })

  it("gives run IDs a strict pattern", () => {
    assert.isTrue(runIdPattern.test("a1b2c3"))
    for (const forged of ["A1B2C3", "a1b2c", "a1b2c3d", "a1b2c}", "#{pid}", ""]) {
      assert.isFalse(runIdPattern.test(forged), forged)
    }
  })
})

describe("findEchoEnd", () => {
  const typed = typedText({ ...base, kind: "posix" })
  const trailer = trailerLine(typed)

  it("finds the row where the echo of the trailer ends, even wrapped, indented or split mid-word", () => {
    const rows = [
      "$ ( echo hi",
      `); { command /usr/bin/tmux run -t%4 -C "#{@la1`,
      `b2c3}$?'";} 2>/dev/null`,
      "hi",
      "$ "
    ]
    assert.strictEqual(findEchoEnd(rows, 0, trailer), 2)
    const indented = ["$ ( echo hi", `      ${trailer}`, "hi"]
    assert.strictEqual(findEchoEnd(indented, 0, trailer), 1)
  })

  it("is not moved by output that repeats the trailer after the echo", () => {
    const rows = ["$ ( echo hi", trailer, trailer, "hi"]
    assert.strictEqual(findEchoEnd(rows, 0, trailer), 1)
  })

  it("says -1 when the echo is not there", () => {
    assert.strictEqual(findEchoEnd(["late output", "$ "], 0, trailer), -1)
  })

  // Output lines drawn from arbitrary text, the trailer itself, and protocol-looking lines with the run's ID.
  const Printed = Schema.Array(
    Schema.Union([Schema.String, Schema.Literals([trailer, `lmcp_a1b2c3 ${typed}`, "@lmcp_end_a1b2c3 0 1 0 0"])])
  )
  prop("for any output, cutting after the echo returns exactly what the command printed", [Printed], ([printed]) => {
    const lines = printed.map((line) => line.replace(/[\n\r]/gu, " "))
    const rows = ["$ ( echo hi", trailer, ...lines, "$ "]
    const end = findEchoEnd(rows, 0, trailer)
    assert.deepStrictEqual(extractOutput(rows, rows, { row: end + 1, column: 0 }, rows.length - 1, 0), lines)
  })
})

describe("extractOutput", () => {
  const start = { row: 3, column: 0 }
  const echo = ["$ ( echo hi", "> ", "); trailer"]

  it("returns the rows from the start up to the end position", () => {
    assert.deepStrictEqual(extractOutput([...echo, "hi", "$ "], [...echo, "hi", "$ "], start, 4, 0), ["hi"])
  })

  it("cuts a partial last row at the cursor column, dropping the prompt drawn after it", () => {
    const rows = [...echo, "abc$ "]
    assert.deepStrictEqual(extractOutput(rows, rows, start, 3, 3), ["abc"])
  })

  it("joins wrapped rows back into one line and keeps trailing spaces the command wrote", () => {
    const rows = [...echo, "0123456789", "abcdef  ", "$ "]
    const joined = [...echo, "0123456789abcdef  ", "$ "]
    assert.deepStrictEqual(extractOutput(rows, joined, start, 5, 0), ["0123456789abcdef  "])
  })

  it("counts wide characters as two cells when cutting", () => {
    const rows = [...echo, "日本語$ "]
    assert.deepStrictEqual(extractOutput(rows, rows, start, 3, 6), ["日本語"])
  })

  it("reports an output with nothing in it as no lines", () => {
    const rows = [...echo, "$ "]
    assert.deepStrictEqual(extractOutput(rows, rows, start, 3, 0), [])
  })

  it("starts at a marked position, even mid-row after continuation prompts", () => {
    const rows = ["$  (", "echo hi", "); trailer", "> > hi", "$ "]
    assert.deepStrictEqual(extractOutput(rows, rows, { row: 3, column: 4 }, 4, 0), ["hi"])
    const silent = ["$  (", "true", "); trailer", "> > $ "]
    assert.deepStrictEqual(extractOutput(silent, silent, { row: 3, column: 4 }, 3, 4), [])
  })
})

it("parses the trailer's end record", () => {
  assert.deepStrictEqual(parseEndRecord("120 5 3 2"), { historySize: 120, cursorY: 5, cursorX: 3, status: 2 })
  assert.isUndefined(parseEndRecord(""))
  assert.isUndefined(parseEndRecord("1 2 3"))
})
