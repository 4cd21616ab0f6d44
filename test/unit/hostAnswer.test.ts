/**
 * A hub decodes a host's result with the tool's output schema (issue 58): a result that fits passes
 * as the hub's schema says it (a field the hub does not know is dropped); one that does not fit, or
 * none, is refused with an error naming the host, the tool and what is wrong.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { assert, describe, it } from "vitest"
import { hostAnswer } from "../../src/hub/hostAnswer.ts"
import { definitionOf } from "../../src/tools/index.ts"

const capture = definitionOf("capture_pane")!
const decoded = (structured: unknown) => Effect.runPromiseExit(hostAnswer("alpha", capture, structured))

describe("hostAnswer", () => {
  it("passes a result that fits the tool's output schema, without fields the hub does not know", async () => {
    const answer = await decoded({ pane_id: "%3", content: "hello", lines: 1, from_a_newer_host: true })
    assert.deepStrictEqual(Exit.isSuccess(answer) && answer.value, { pane_id: "%3", content: "hello", lines: 1 })
  })

  it("refuses a result that does not fit, or none, saying what is wrong", async () => {
    const cases = [
      [{ pane_id: 7, content: "x", lines: 1 }, "does not fit the tool's output schema"],
      [{ pane_id: "%3", content: "x" }, "lines"],
      [undefined, "it holds no structured result"]
    ] as const
    for (const [structured, said] of cases) {
      const answer = await decoded(structured)
      const error = Exit.isFailure(answer)
        ? Exit.findErrorOption(answer).pipe((found) => found._tag === "Some" ? found.value : undefined)
        : undefined
      assert.isDefined(error)
      assert.strictEqual(error!._tag, "HostAnswerRefused")
      assert.include(error!.message, "host alpha's answer to capture_pane was refused")
      assert.include(error!.message, said)
    }
  })
})
