/**
 * The control protocol's pure parts: how an argument is quoted, how a request is written, how answers
 * are read back from a stream that arrives in any chunks (pane text that looks like a guard among
 * them), and which invocations may go over the connection.
 */
import { assert, describe, it } from "vitest"
import {
  answerOf,
  type ControlAnswer,
  ControlLost,
  controlPasteBytes,
  ControlReader,
  controlRoute,
  onlyReads,
  quoteArgument,
  requestText
} from "../../src/platform/TmuxControl.ts"

const lines = (text: string) => text.split("\n").map((line) => Buffer.from(line, "utf8"))

describe("quoteArgument", () => {
  it("quotes plain text as it is and escapes what the parser would act on as three octal digits", () => {
    assert.strictEqual(quoteArgument("abc def;#{x}'"), "\"abc def;#{x}'\"")
    assert.strictEqual(quoteArgument("a\"b\\c$d~e"), "\"a\\042b\\134c\\044d\\176e\"")
    assert.strictEqual(quoteArgument("\n\r\t\u007f\u0001"), "\"\\012\\015\\011\\177\\001\"")
    assert.strictEqual(quoteArgument(""), "\"\"")
  })

  it("sends non-ASCII text as its UTF-8 bytes, one latin1 char each, and U+00FF's second byte unescaped", () => {
    const quoted = quoteArgument("é漢ÿ")
    assert.deepStrictEqual(
      [...Buffer.from(quoted.slice(1, -1), "latin1")],
      [...Buffer.from("é漢ÿ", "utf8")]
    )
  })
})

describe("requestText", () => {
  it("puts a marker after each command but the last, and the closing marker on a line of its own", () => {
    assert.strictEqual(
      requestText([["kill-pane", "-t", "%1"], ["list-sessions", "-F", "#{session_id}"]], ["m1", "m2"]),
      "kill-pane \"-t\" \"%1\" ; display-message -p \"m1\" ; list-sessions \"-F\" \"#{session_id}\"\n" +
        "display-message -p \"m2\"\n"
    )
  })
})

describe("answerOf", () => {
  it("takes the first %begin and the last guard with its numbers: forged guards in the output stay output", () => {
    const answer = answerOf(lines("%begin 1 2 1\nrow\n%end 1 2 1\n%begin 1 3 1\nmore\n%end 1 2 1\n%sessions-changed"))
    assert.deepStrictEqual(answer?.body.map(String), ["row", "%end 1 2 1", "%begin 1 3 1", "more"])
    assert.isTrue(answer?.ok)
  })

  it("reads an %error guard as a failure, and lines without guards as no answer", () => {
    assert.isFalse(answerOf(lines("%begin 5 6 1\ncan't find pane: %9\n%error 5 6 1"))?.ok)
    assert.isUndefined(answerOf(lines("%begin 5 6 1\nhalf")))
    assert.isUndefined(answerOf(lines("stray")))
  })
})

/** A reader with one request of `markers`, and what it answered. */
const reading = (markers: ReadonlyArray<string>, limitBytes = 1 << 20) => {
  const notices: Array<string> = []
  const reader = new ControlReader((line) => notices.push(line))
  const got: { answer?: ControlAnswer; lost?: ControlLost } = {}
  reader.expect({
    markers,
    limitBytes,
    resolve: (answer) => (got.answer = answer),
    reject: (lost) => (got.lost = lost)
  })
  return { reader, got, notices }
}

describe("ControlReader", () => {
  const stream = "%begin 1 10 1\n%0 one\n%end 1 10 1\n%begin 1 11 1\nm1\n%end 1 11 1\n%window-add @3\n" +
    "%begin 1 12 1\n%end 1 2 1\ntext\n%end 1 12 1\n%begin 1 13 1\nm2\n%end 1 13 1\n"

  it("answers with every command's output, whatever chunks the stream comes in", () => {
    for (const size of [1, 3, 7, 1000]) {
      const { reader, got } = reading(["m1", "m2"])
      const bytes = Buffer.from(stream)
      for (let at = 0; at < bytes.length; at += size) reader.feed(bytes.subarray(at, at + size))
      assert.deepStrictEqual(got.answer, { stdout: "%0 one\n%end 1 2 1\ntext\n", error: undefined, tooLarge: false })
      assert.strictEqual(reader.waiting, 0)
    }
  })

  it("passes lines outside any request to the notice, and keeps the error of a list that stopped", () => {
    const { reader, got, notices } = reading(["m1", "m2"])
    reader.feed(Buffer.from("%begin 1 1 1\nok\n%end 1 1 1\n%begin 1 2 1\nm1\n%end 1 2 1\n"))
    reader.feed(Buffer.from("%begin 1 3 1\ncan't find pane: %9\n%error 1 3 1\n%begin 1 4 1\nm2\n%end 1 4 1\n"))
    reader.feed(Buffer.from("%sessions-changed\n"))
    assert.deepStrictEqual(got.answer, { stdout: "ok\n", error: "can't find pane: %9", tooLarge: false })
    assert.deepStrictEqual(notices, ["%sessions-changed"])
  })

  it("reads past its limit without keeping the text, and says it was too large", () => {
    const { reader, got } = reading(["m1"], 10)
    reader.feed(Buffer.from(`%begin 1 1 1\n${"x".repeat(10_000)}\n%end 1 1 1\n%begin 1 2 1\nm1\n%end 1 2 1\n`))
    assert.deepStrictEqual(got.answer, { stdout: "", error: undefined, tooLarge: true })
  })

  it("fails the requests in flight, and every later one as never sent, when the stream breaks", () => {
    const { reader, got } = reading(["m1"])
    reader.feed(Buffer.from("garbage\n%begin 1 2 1\nm1\n%end 1 2 1\n"))
    assert.isTrue(got.lost?.sent)
    const later: { lost?: ControlLost } = {}
    reader.expect({ markers: ["m9"], limitBytes: 10, resolve: () => undefined, reject: (lost) => (later.lost = lost) })
    assert.isFalse(later.lost?.sent)
  })
})

describe("controlRoute", () => {
  it("carries commands that name their object and never wait", () => {
    const commands = [["capture-pane", "-p", "-t", "%1"], ["list-panes", "-a", "-F", "x"], ["wait-for", "-S", "c"]]
    assert.deepStrictEqual(controlRoute(commands, {}), commands)
  })

  it("leaves a wait, a spawn, a start folder and a command with no target to a spawned client", () => {
    assert.isUndefined(controlRoute([["wait-for", "chan"]], {}))
    assert.isUndefined(controlRoute([["new-window", "-t", "$1"]], {}))
    assert.isUndefined(controlRoute([["respawn-pane", "-k", "-t", "%1"]], {}))
    assert.isUndefined(controlRoute([["list-panes", "-F", "x"]], {}))
    assert.isUndefined(controlRoute([["kill-session"]], {}))
    assert.isUndefined(controlRoute([["list-sessions", "-F", "x"]], { cwd: "/tmp" }))
  })

  it("sends a paste's input as set-buffer when it is small and has no NUL", () => {
    const paste = [["load-buffer", "-b", "buf", "-"], ["paste-buffer", "-d", "-b", "buf", "-t", "%1"]]
    assert.deepStrictEqual(controlRoute(paste, { input: "-x y" })?.[0], ["set-buffer", "-b", "buf", "--", "-x y"])
    assert.isUndefined(controlRoute(paste, { input: "a\u0000b" }))
    assert.isUndefined(controlRoute(paste, { input: "x".repeat(controlPasteBytes + 1) }))
  })

  it("knows a list of reads from one that changes something", () => {
    assert.isTrue(onlyReads([["display-message", "-p", "-t", "%1", "x"], ["capture-pane", "-p", "-t", "%1"]]))
    assert.isFalse(onlyReads([["display-message", "-p", "-t", "%1", "x"], ["send-keys", "-t", "%1", "x"]]))
  })
})
