/**
 * Issue 23, item 1: a short write(2) leaves no torn audit line. Against a fake descriptor that
 * takes only part of a write (a disk that fills up), the file holds whole JSON lines only.
 */
import { it as effectIt } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/testing/TestClock"
import { openSync } from "node:fs"
import { assert, describe, it } from "vitest"
import * as AuditLive from "../../src/layers/AuditLive.ts"
import * as ServerLogLive from "../../src/layers/ServerLogLive.ts"
import { type FdIo, lineWriter } from "../../src/platform/AuditWrite.ts"
import { Audit } from "../../src/services/Audit.ts"

/** A file of `room` bytes that takes what fits; `truncatable` false is a pipe or terminal. */
const fakeFile = (room: number, truncatable = true) => {
  let data = Buffer.alloc(0)
  const io: FdIo = {
    write: (_fd, bytes) => {
      const taken = Math.max(0, Math.min(bytes.length, room - data.length))
      if (taken === 0) throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" })
      data = Buffer.concat([data, bytes.subarray(0, taken)])
      return taken
    },
    size: () => data.length,
    truncate: (_fd, length) => {
      if (!truncatable) throw Object.assign(new Error("EINVAL"), { code: "EINVAL" })
      data = data.subarray(0, length)
    }
  }
  return { io, text: () => data.toString("utf8"), grow: (bytes: number) => (room += bytes) }
}

const lines = (text: string) => text.split("\n").filter((line) => line !== "")
const record = (n: number) => `${JSON.stringify({ event: "tool_call_intent", call: n, pad: "x".repeat(40) })}\n`

describe("a short audit write", () => {
  it("is cut off again, so the file keeps whole lines and the next record starts on its own line", () => {
    const file = fakeFile(100)
    const writer = lineWriter(file.io, () => "t")
    assert.isTrue(writer.write(3, record(1)).ok)
    const short = writer.write(3, record(2))
    assert.isFalse(short.ok)
    assert.strictEqual(file.text(), record(1))
    file.grow(1000)
    assert.isTrue(writer.write(3, record(2)).ok)
    assert.deepStrictEqual(lines(file.text()).map((line) => JSON.parse(line).call), [1, 2])
  })

  it("where it cannot be cut off, is ended and marked before the next record", () => {
    const file = fakeFile(100, false)
    const writer = lineWriter(file.io, () => "t")
    assert.isTrue(writer.write(2, record(1)).ok)
    assert.isFalse(writer.write(2, record(2)).ok)
    // Still full: the marker does not fit either, and the record is not appended to the fragment.
    assert.isFalse(writer.write(2, record(3)).ok)
    file.grow(1000)
    assert.isTrue(writer.write(2, record(3)).ok)
    const [first, fragment, marker, third] = lines(file.text())
    assert.strictEqual(JSON.parse(first!).call, 1)
    assert.throws(() => JSON.parse(fragment!))
    assert.deepStrictEqual(JSON.parse(marker!), { event: "audit_torn", time: "t", bytes: fragment!.length })
    assert.strictEqual(JSON.parse(third!).call, 3)
  })
})

describe("the audit file sink on a disk that fills up", () => {
  const intent = {
    tool: "list_sessions",
    toolset: "inspect",
    tmux_effect: ["observe"],
    process_reach: "none",
    client_id: undefined,
    request_id: 1,
    targets: [],
    arguments: {}
  }
  effectIt.effect("refuses the call whose intent record does not fit, and keeps whole lines only", () => {
    const file = fakeFile(400)
    return Effect.gen(function*() {
      const audit = yield* Audit
      const first = yield* audit.intent(intent)
      yield* audit.outcome({ call: first, tool: "list_sessions", outcome: "ok", duration_ms: 1, targets: [] })
      const refused = yield* Effect.flip(audit.intent(intent))
      assert.strictEqual(refused._tag, "AuditUnavailable")
      assert.include(refused.message, "bytes were written")
      file.grow(4000)
      yield* audit.intent(intent)
      const events = lines(file.text()).map((line) => JSON.parse(line).event)
      assert.deepStrictEqual(events, ["tool_call_intent", "tool_call_outcome", "tool_call_intent"])
      // A real descriptor for the layer to close; the records go through the fake writer.
    }).pipe(
      Effect.provide(
        AuditLive.layer({ kind: "file", fd: openSync("/dev/null", "w"), path: "/audit.jsonl" }, 0, file.io).pipe(
          Layer.provide(ServerLogLive.layer)
        )
      )
    )
  })

  effectIt.effect(
    "stamps records with the Clock's time, so a host's clock (here the test clock) is the one used",
    () => {
      const file = fakeFile(4000)
      return Effect.gen(function*() {
        const audit = yield* Audit
        yield* TestClock.setTime(Date.UTC(2030, 0, 2, 3, 4, 5))
        yield* audit.intent(intent)
        yield* TestClock.adjust(1500)
        yield* audit.rejection({
          tool: "list_sessions",
          reason: "not_selected",
          client_id: undefined,
          request_id: 2,
          arguments: {}
        })
        const times = lines(file.text()).map((line) => JSON.parse(line).time)
        assert.deepStrictEqual(times, ["2030-01-02T03:04:05.000Z", "2030-01-02T03:04:06.500Z"])
      }).pipe(
        Effect.provide(
          AuditLive.layer({ kind: "file", fd: openSync("/dev/null", "w"), path: "/audit.jsonl" }, 0, file.io).pipe(
            Layer.provide(ServerLogLive.layer)
          )
        )
      )
    }
  )
})
