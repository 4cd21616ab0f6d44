/**
 * The run machine's moves (src/domain/runMachine.ts): a move a state does not have yields nothing,
 * and an answer's keys go to the run's pane only.
 */
import { assert, describe, it } from "vitest"
import { commandsOf, type RunState, step } from "../../src/domain/runMachine.ts"

const run = { id: "abc123", paneId: "%5" }
const collection = { status: 0, ended: "reported" as const, collector: "7.1", at: 1 }

describe("step", () => {
  it("has no collection of a run that still holds its pane, and no abandon of one that ended", () => {
    assert.isUndefined(step({ _tag: "Running", run }, { _tag: "Collected", collection }))
    assert.isUndefined(step({ _tag: "Ended", run, status: 0 }, { _tag: "Abandoned", collection }))
    assert.isUndefined(step({ _tag: "Free" }, { _tag: "Answered" }))
    assert.throws(() => commandsOf({ _tag: "Free" }, { _tag: "Released", successor: "1" }), /no Released move/u)
  })

  it("collects into the pane's mark, guarded on the run's record", () => {
    const moved = step({ _tag: "Ended", run, status: 3 }, {
      _tag: "Collected",
      collection: { ...collection, status: 3 }
    })
    assert.deepStrictEqual(moved?.next, { _tag: "Collected", runId: "abc123", status: 3, ended: "reported" })
    assert.deepStrictEqual(moved?.commands[0], [
      "set-option",
      "-pu",
      "-t",
      "%5",
      "#{?@lmcp_run_abc123,@lmcp_none,lmcp-run-collected}"
    ])
  })

  it("releases a claim only while its run is recorded, and only once", () => {
    const held: RunState = { _tag: "Held", run }
    const commands = commandsOf(held, { _tag: "Released", successor: "42" })
    assert.deepStrictEqual(commands.slice(0, 2), [
      ["set-option", "-pu", "-t", "%5", "#{?@lmcp_run_abc123,@lmcp_none,lmcp-run-collected}"],
      ["set-option", "-p", "-o", "-t", "%5", "@lmcp_next_abc123", "42"]
    ])
    assert.deepStrictEqual(commands.at(-1), ["send-keys", "-t", "%5", "C-c"])
  })

  it("types an answer's keys into the run's pane and nowhere else", () => {
    const held: RunState = { _tag: "Held", run }
    const here = step(held, { _tag: "Answer", program: "python3", keys: [["send-keys", "-t", "%5", "-l", "y"]] })
    assert.strictEqual(here?.next._tag, "Running")
    // The guard, the trailer made to discard what the program leaves unread, the keys.
    assert.deepStrictEqual(here?.commands.map((command) => command[0]), ["set-option", "set-option", "send-keys"])
    assert.match(
      here?.commands[1]?.at(-1) ?? "",
      /^copy-mode -q -t %5 ; send-keys -t %5 C-c ; set-option -pu -t %5 @lmcp_claim ; /u
    )
    assert.isUndefined(step(held, { _tag: "Answer", program: "python3", keys: [["send-keys", "-t", "%6", "y"]] }))
    assert.isUndefined(step(held, { _tag: "Answer", program: "python3", keys: [["kill-server"]] }))
  })
})
