/**
 * The run's state read from its pane's records (domain/runMachine.ts `stateOnPane`): each record
 * combination reads as the machine's state, and the moves `step` has from it are the ones a program
 * asking from that reading may make.
 */
import { assert, describe, it } from "vitest"
import { stateOnPane, step } from "../../src/domain/runMachine.ts"
import { encodeMark } from "../../src/domain/runRecord.ts"

const run = { id: "a1b2c3", paneId: "%1" }
const none = { runRecord: "", endRecord: "", claim: "", collected: "" }
const mark = (runId: string, status: number | null) =>
  encodeMark({ runId, status, ended: status === null ? "unreported" : "reported", collector: "1.2", at: 5 })
const collection = { status: 0, ended: "reported", collector: "1.2", at: 5 } as const

describe("stateOnPane", () => {
  it("reads a run's records as the machine's state", () => {
    assert.deepStrictEqual(stateOnPane(none, run), { _tag: "Free" })
    assert.deepStrictEqual(stateOnPane({ ...none, collected: `${mark("ffffff", 1)}/${mark(run.id, 3)}` }, run), {
      _tag: "Collected",
      runId: run.id,
      status: 3,
      ended: "reported"
    })
    assert.deepStrictEqual(stateOnPane({ ...none, collected: mark("ffffff", 1) }, run), { _tag: "Free" })
    const recorded = { ...none, runRecord: "<record>" }
    assert.deepStrictEqual(stateOnPane({ ...recorded, claim: run.id }, run), { _tag: "Held", run })
    assert.deepStrictEqual(stateOnPane({ ...recorded, claim: "ffffff" }, run), { _tag: "Released", run })
    assert.deepStrictEqual(stateOnPane({ ...recorded, endRecord: "0 2 2 7", claim: "" }, run), {
      _tag: "Ended",
      run,
      status: 7
    })
  })

  it("gives the moves a program may ask from what it read: collect an ended run, not a held one", () => {
    const ended = stateOnPane({ ...none, runRecord: "<record>", endRecord: "0 2 2 0" }, run)
    assert.isDefined(step(ended, { _tag: "Collected", collection }))
    const held = stateOnPane({ ...none, runRecord: "<record>", claim: run.id }, run)
    assert.isUndefined(step(held, { _tag: "Collected", collection }))
    assert.isDefined(step(held, { _tag: "Abandoned", collection: { ...collection, status: null } }))
    assert.isUndefined(step(stateOnPane(none, run), { _tag: "Answered" }))
  })
})
