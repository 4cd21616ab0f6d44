/**
 * A task's ID (domain/tasks.ts): what it names reads back from it, and no other string reads as a
 * task's ID (a reader never throws on what a client sends).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { PaneId } from "../../src/domain/ids.ts"
import { newTaskNonce, parseTaskId, sameNonce, taskIdOf } from "../../src/domain/tasks.ts"

const Ref = Schema.Struct({
  pane: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 99_999 })),
  run: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 0xffffff }))
})

describe("task IDs", () => {
  it.effect.prop("parse(id(task)) is the task; the ID is printable ASCII", [Ref], ([input]) =>
    Effect.sync(() => {
      const ref = {
        paneId: `%${input.pane}` as PaneId,
        runId: input.run.toString(16).padStart(6, "0"),
        nonce: newTaskNonce()
      }
      const id = taskIdOf(ref)
      assert.match(id, /^[\x21-\x7e]{1,1024}$/u)
      assert.deepStrictEqual(parseTaskId(id), ref)
    }), { arbitrary: { runs: 200 } })

  it.effect.prop(
    "any other string is no task's ID, or is one that names itself",
    [Schema.String],
    ([text]) =>
      Effect.sync(() => {
        const ref = parseTaskId(text)
        if (ref !== undefined) assert.strictEqual(taskIdOf(ref), text)
      }),
    { arbitrary: { runs: 300 } }
  )

  it("nonces are 128 random bits, compared whole", () => {
    const [a, b] = [newTaskNonce(), newTaskNonce()]
    assert.match(a, /^[0-9a-f]{32}$/u)
    assert.notStrictEqual(a, b)
    assert.isTrue(sameNonce(a, a))
    assert.isFalse(sameNonce(a, b))
    assert.isFalse(sameNonce(a, a.slice(0, 31)))
  })
})
