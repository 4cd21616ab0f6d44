/**
 * The log: lines go to their writer at once, and to a client only once it listens (the lines
 * before that replayed, up to a bound). Each log keeps its own backlog and listener.
 */
import { assert, describe, it } from "vitest"
import { makeServerLog } from "../../src/platform/ServerLog.ts"
import { atLeast } from "../../src/services/ServerLog.ts"

describe("the server log", () => {
  it("replays the lines before a listener to it, then follows; another log shares none of it", () => {
    const written: Array<string> = []
    const write = (text: string) => written.push(text)
    const log = makeServerLog()
    const other = makeServerLog()
    log.line("info", "ready", write)
    log.line("warning", "careful", write)
    const heard: Array<string> = []
    const otherHeard: Array<string> = []
    other.listen((level, line) => otherHeard.push(`${level} ${line}`))
    log.listen((level, line) => heard.push(`${level} ${line}`))
    log.line("error", "later", write)
    assert.deepStrictEqual(written, ["ready\n", "careful\n", "later\n"])
    assert.deepStrictEqual(heard, ["info ready", "warning careful", "error later"])
    assert.deepStrictEqual(otherHeard, [])
  })

  it("keeps at most 50 lines for a client that has not listened yet", () => {
    const log = makeServerLog()
    for (let i = 0; i < 60; i++) log.line("debug", `line ${i}`, () => undefined)
    const heard: Array<string> = []
    log.listen((_, line) => heard.push(line))
    assert.lengthOf(heard, 50)
    assert.strictEqual(heard[0], "line 0")
  })

  it("orders levels as RFC 5424 does", () => {
    assert.isTrue(atLeast("error", "warning"))
    assert.isFalse(atLeast("info", "notice"))
  })
})
