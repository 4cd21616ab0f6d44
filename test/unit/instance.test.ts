/**
 * Judging a server instance by its tag: dead only when provable (its pid gone, or reused by a
 * process started at another time); another pid namespace or an unreadable one is never judged.
 */
import { assert, describe, it } from "vitest"
import { formatTag, judgeInstance, parseTag } from "../../src/domain/instance.ts"
import { bufferTag } from "../../src/domain/protocolNames.ts"

const here = { namespace: "4026531836", startedOf: (pid: number) => pid === 100 ? 5000 : undefined }

describe("instance tags", () => {
  it("reads back what it writes, and nothing else", () => {
    const instance = { pid: 100, started: 5000, namespace: "4026531836" }
    assert.deepStrictEqual(parseTag(formatTag(instance)), instance)
    for (const bad of ["", "100", "100.5000", "x.1.2", "100.5000.1.2", "-1.2.3"]) assert.isUndefined(parseTag(bad))
  })

  it("judges dead a pid that is gone or reused, alive the same process, and never another namespace", () => {
    assert.strictEqual(judgeInstance({ pid: 100, started: 5000, namespace: here.namespace }, here), "alive")
    assert.strictEqual(judgeInstance({ pid: 100, started: 4999, namespace: here.namespace }, here), "dead")
    assert.strictEqual(judgeInstance({ pid: 101, started: 5000, namespace: here.namespace }, here), "dead")
    assert.strictEqual(judgeInstance({ pid: 101, started: 5000, namespace: "4026532000" }, here), "unknown")
    assert.strictEqual(judgeInstance({ pid: 101, started: 5000, namespace: "" }, here), "unknown")
  })

  it("finds the tag in a paste buffer's name; older names without one are not judged", () => {
    assert.strictEqual(bufferTag("libtmux-mcp-paste-100.5000.4026531836-a1b2c3"), "100.5000.4026531836")
    assert.isUndefined(bufferTag("libtmux-mcp-paste-100-a1b2c3"))
    assert.isUndefined(bufferTag("other-100.5000.1-a1b2c3"))
  })
})
