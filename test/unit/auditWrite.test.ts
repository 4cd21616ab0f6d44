/**
 * Issue 23, item 1: a short write(2) leaves no torn audit line. Against a fake descriptor that
 * takes only part of a write (a disk that fills up), the file holds whole JSON lines only.
 * Issue 33: a write that never returns (a frozen file system) refuses its call after the bound,
 * refuses later calls at once, and is followed by an outcome record when it lands after all.
 */
import { it as effectIt } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/testing/TestClock"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, assert, describe, it } from "vitest"
import * as AuditLive from "../../src/layers/AuditLive.ts"
import * as ServerLogLive from "../../src/layers/ServerLogLive.ts"
import { openAuditFile } from "../../src/platform/AuditFile.ts"
import { type FdIo, lineWriter } from "../../src/platform/AuditWrite.ts"
import { Audit } from "../../src/services/Audit.ts"

/** A file of `room` bytes that takes what fits; `truncatable` false is a pipe or terminal. */
const fakeFile = (room: number, truncatable = true) => {
  let data = Buffer.alloc(0)
  const io: FdIo = {
    write: async (_fd, bytes) => {
      const taken = Math.max(0, Math.min(bytes.length, room - data.length))
      if (taken === 0) throw Object.assign(new Error("ENOSPC: no space left on device"), { code: "ENOSPC" })
      data = Buffer.concat([data, bytes.subarray(0, taken)])
      return taken
    },
    size: async () => data.length,
    truncate: async (_fd, length) => {
      if (!truncatable) throw Object.assign(new Error("EINVAL"), { code: "EINVAL" })
      data = data.subarray(0, length)
    }
  }
  return { io, text: () => data.toString("utf8"), grow: (bytes: number) => (room += bytes) }
}

const lines = (text: string) => text.split("\n").filter((line) => line !== "")
const record = (n: number) => `${JSON.stringify({ event: "tool_call_intent", call: n, pad: "x".repeat(40) })}\n`

describe("a short audit write", () => {
  it("is cut off again, so the file keeps whole lines and the next record starts on its own line", async () => {
    const file = fakeFile(100)
    const writer = lineWriter(file.io, () => "t")
    assert.isTrue((await writer.write(3, record(1))).ok)
    const short = await writer.write(3, record(2))
    assert.isFalse(short.ok)
    assert.strictEqual(file.text(), record(1))
    file.grow(1000)
    assert.isTrue((await writer.write(3, record(2))).ok)
    assert.deepStrictEqual(lines(file.text()).map((line) => JSON.parse(line).call), [1, 2])
  })

  it("where it cannot be cut off, is ended and marked before the next record", async () => {
    const file = fakeFile(100, false)
    const writer = lineWriter(file.io, () => "t")
    assert.isTrue((await writer.write(2, record(1))).ok)
    assert.isFalse((await writer.write(2, record(2))).ok)
    // Still full: the marker does not fit either, and the record is not appended to the fragment.
    assert.isFalse((await writer.write(2, record(3))).ok)
    file.grow(1000)
    assert.isTrue((await writer.write(2, record(3))).ok)
    const [first, fragment, marker, third] = lines(file.text())
    assert.strictEqual(JSON.parse(first!).call, 1)
    assert.throws(() => JSON.parse(fragment!))
    assert.deepStrictEqual(JSON.parse(marker!), { event: "audit_torn", time: "t", bytes: fragment!.length })
    assert.strictEqual(JSON.parse(third!).call, 3)
  })
})

const uid = process.getuid?.() ?? 0
const folders: Array<string> = []
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true })
})

/**
 * The live sink on a real audit file (so the check that it is still at its path has a file to
 * look at), with the records going through the fake writer `io`.
 */
const sinkOn = (io: FdIo) =>
  Layer.unwrap(Effect.promise(async () => {
    const folder = mkdtempSync(join(tmpdir(), "libtmux-mcp-audit-unit-"))
    folders.push(folder)
    const path = join(folder, "audit.jsonl")
    return AuditLive.layer({ kind: "file", file: await openAuditFile(path, uid), path }, uid, io)
  })).pipe(Layer.provide(ServerLogLive.layer))

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

describe("the audit file sink on a disk that fills up", () => {
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
    }).pipe(Effect.provide(sinkOn(file.io)))
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
      }).pipe(Effect.provide(sinkOn(file.io)))
    }
  )
})

/** A file whose writes hang while it is frozen (each one waits for the thaw), like a frozen mount. */
const freezableFile = () => {
  const file = fakeFile(1 << 20)
  let thaw: () => void = () => undefined
  let thawed: Promise<void> = Promise.resolve()
  let announce: () => void = () => undefined
  let stuck = new Promise<void>((resolve) => (announce = resolve))
  const io: FdIo = {
    ...file.io,
    write: async (fd, bytes) => {
      const wait = thawed
      announce()
      await wait
      return file.io.write(fd, bytes)
    }
  }
  return {
    io,
    text: file.text,
    freeze: () => {
      thawed = new Promise((resolve) => (thaw = resolve))
      stuck = new Promise((resolve) => (announce = resolve))
    },
    /** Resolves once a write waits on the frozen file. */
    stuck: () => stuck,
    thaw: () => thaw()
  }
}

/** Lets real I/O callbacks run (the test clock stands still) until `ready` holds; fails after a while. */
const settle = (ready: () => boolean) =>
  Effect.promise(async () => {
    for (let i = 0; i < 500 && !ready(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
    assert.isTrue(ready(), "the writer never caught up after the thaw")
  })

describe("the audit file sink on a frozen file system", () => {
  effectIt.effect(
    "refuses the call whose record is not written within the bound, refuses later calls at once, " +
      "and writes an outcome record after the late intent record when the file system thaws",
    () => {
      const file = freezableFile()
      return Effect.gen(function*() {
        const audit = yield* Audit
        const first = yield* audit.intent(intent)
        file.freeze()
        const waiting = yield* Effect.forkChild(Effect.flip(audit.intent({ ...intent, request_id: 2 })))
        yield* Effect.promise(file.stuck)
        yield* TestClock.adjust(AuditLive.writeBoundMs)
        const late = yield* Fiber.join(waiting)
        assert.strictEqual(late._tag, "AuditUnavailable")
        assert.match(
          late.message,
          /^list_sessions did nothing: its audit record could not be written \(\/.*audit\.jsonl: /
        )
        assert.include(
          late.message,
          "audit.jsonl: the write did not complete within 5 s (is the file system frozen or stalled?); should it " +
            "complete later, an outcome record saying this call did nothing follows it); no call acts"
        )
        // No clock moves now: the refusal comes at once, and its record is never written.
        const refused = yield* Effect.flip(audit.intent({ ...intent, request_id: 3 }))
        assert.include(
          refused.message,
          "audit.jsonl: an audit write has been pending for 5 s (is the file system frozen or stalled?); " +
            "this call's record was not queued"
        )
        // A best-effort record does not wait behind the stalled write either.
        yield* audit.outcome({ call: first, tool: "list_sessions", outcome: "ok", duration_ms: 1, targets: [] })
        file.thaw()
        yield* settle(() => lines(file.text()).length === 4)
        yield* audit.intent({ ...intent, request_id: 4 })
        const records = lines(file.text()).map((line) => JSON.parse(line))
        assert.deepStrictEqual(
          records.map((record) => [record.event, record.call, record.request_id, record.error_tag]),
          [
            ["tool_call_intent", 1, 1, undefined],
            ["tool_call_intent", 2, 2, undefined],
            ["tool_call_outcome", 2, undefined, "AuditUnavailable"],
            ["tool_call_outcome", 1, undefined, undefined],
            ["tool_call_intent", 3, 4, undefined]
          ]
        )
      }).pipe(Effect.provide(sinkOn(file.io)))
    }
  )

  effectIt.effect("drops an intent record still queued when its call stops waiting: it is never written", () => {
    const file = freezableFile()
    return Effect.gen(function*() {
      const audit = yield* Audit
      file.freeze()
      const stalled = yield* Effect.forkChild(Effect.flip(audit.intent(intent)))
      yield* Effect.promise(file.stuck)
      yield* TestClock.adjust(AuditLive.writeBoundMs - 1000)
      const queued = yield* Effect.forkChild(Effect.flip(audit.intent({ ...intent, request_id: 2 })))
      yield* TestClock.adjust(AuditLive.writeBoundMs)
      yield* Fiber.join(stalled)
      const behind = yield* Fiber.join(queued)
      assert.include(
        behind.message,
        "an earlier audit write did not complete within 5 s (is the file system frozen or stalled?); " +
          "this call's record will not be written"
      )
      file.thaw()
      yield* settle(() => lines(file.text()).length === 2)
      yield* audit.intent({ ...intent, request_id: 3 })
      const records = lines(file.text()).map((line) => JSON.parse(line))
      assert.deepStrictEqual(records.map((record) => [record.event, record.call, record.request_id]), [
        ["tool_call_intent", 1, 1],
        ["tool_call_outcome", 1, undefined],
        ["tool_call_intent", 3, 3]
      ])
    }).pipe(Effect.provide(sinkOn(file.io)))
  })
})
