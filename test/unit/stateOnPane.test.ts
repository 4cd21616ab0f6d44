/**
 * The run's state read from its pane's records (domain/runMachine.ts `RunOnPane`, `stateOnPane`): the
 * head line decodes into its fields and back, each record combination reads as the machine's state,
 * the moves `step` has from it are the ones a program asking from that reading may make, and the
 * closing move is the one the state has.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { closing, RunOnPane, stateOnPane, step } from "../../src/domain/runMachine.ts"
import { encodeMark } from "../../src/domain/runRecord.ts"
import { HeadLine } from "../../src/domain/runShapes.ts"

/** A count tmux prints in the head: a whole number, never negative. */
const count = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000_000 }))
/** A field before the program's: tmux's `|` never occurs in it (the records are encoded without one). */
const field = Schema.String.check(Schema.isPattern(/^[^|]*$/u))

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

describe("HeadLine", () => {
  it("decodes tmux's head line into its fields, a program with `|` whole, a closed pane's empty fields as 0", () => {
    const head = Schema.decodeSync(HeadLine)("0 2 2 7|||<record>|m1/m2/|a1b2c3|120|3|4|1|0|4242|vi|x")
    assert.deepInclude(head, { endRecord: "0 2 2 7", runRecord: "<record>", collected: "m1/m2/", claim: "a1b2c3" })
    assert.deepInclude(head, { history: 120, cursorY: 3, cursorX: 4, alternate: true, dead: false, panePid: 4242 })
    assert.strictEqual(head.program, "vi|x")
    assert.deepInclude(Schema.decodeSync(HeadLine)("||||//||||||||"), { panePid: 0, history: 0, program: "" })
  })

  it.prop("encodes a head back to the line it decodes from", [
    Schema.Struct({
      endRecord: field,
      mark: field,
      typed: field,
      runRecord: field,
      collected: field,
      claim: field,
      history: count,
      cursorY: count,
      cursorX: count,
      alternate: Schema.Boolean,
      dead: Schema.Boolean,
      panePid: count,
      program: Schema.String
    })
  ], ([head]) => {
    assert.deepStrictEqual(Schema.decodeSync(HeadLine)(Schema.encodeSync(HeadLine)(head)), head)
  })
})

describe("RunOnPane", () => {
  it("decodes the head read for a run into its state, and refuses to write a state back as records", () => {
    const head = Schema.decodeSync(HeadLine)("0 2 2 7|||<record>|||120|3|4|0|0|4242|bash")
    assert.deepStrictEqual(Schema.decodeSync(RunOnPane)({ run, records: head }), { _tag: "Ended", run, status: 7 })
    assert.throws(() => Schema.encodeSync(RunOnPane)({ _tag: "Free" }))
  })

  it("closes a run from the state it was found in: collected when ended or released, abandoned while held", () => {
    const recorded = { ...none, runRecord: "<record>" }
    const unreported = { ...collection, status: null, ended: "unreported" } as const
    const ended = closing(stateOnPane({ ...recorded, endRecord: "0 2 2 0" }, run), collection)
    assert.deepStrictEqual(ended?.next, { _tag: "Collected", runId: run.id, status: 0, ended: "reported" })
    // Every closing leaves the run's channel gone (lock, two signals, unlock); only an abandonment
    // gives up the pane's claim.
    const releasesClaim = (commands: ReadonlyArray<ReadonlyArray<string>>) =>
      commands.some((command) => (command.at(-1) ?? "").startsWith(`#{?#{==:#{@lmcp_claim},${run.id}},`))
    const clearing: ReadonlyArray<ReadonlyArray<string>> = ["-L", "-S", "-S", "-U"].map((flag) => [
      "wait-for",
      flag,
      "lmcp_a1b2c3"
    ])
    assert.deepStrictEqual<ReadonlyArray<ReadonlyArray<string>> | undefined>(ended?.commands.slice(-4), clearing)
    assert.isFalse(releasesClaim(ended?.commands ?? []))
    const released = closing(stateOnPane({ ...recorded, claim: "ffffff" }, run), unreported)
    assert.strictEqual(released?.next._tag, "Collected")
    const held = closing(stateOnPane({ ...recorded, claim: run.id }, run), unreported)
    assert.isTrue(releasesClaim(held?.commands ?? []))
    assert.deepStrictEqual<ReadonlyArray<ReadonlyArray<string>> | undefined>(held?.commands.slice(-4), clearing)
    assert.isUndefined(closing(stateOnPane(none, run), collection))
    assert.isUndefined(closing({ _tag: "Collected", runId: run.id, status: 0, ended: "reported" }, collection))
  })
})
