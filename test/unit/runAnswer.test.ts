/**
 * The answer's guard (src/programs/runAnswer.ts): admitted by the run protocol's grammar (plain
 * variables only, nothing that runs), and its refusal read back as what changed.
 */
import { assert, describe, it } from "vitest"
import { answerGuard } from "../../src/domain/runCommands.ts"
import { tmuxRefusal } from "../../src/domain/tmuxRefusals.ts"
import { answerRefusal } from "../../src/programs/runAnswer.ts"
import type { Run } from "../../src/services/ShellRuns.ts"
import { refusal } from "../../src/services/TmuxGrammar.ts"

const run = {
  id: "abc123",
  paneId: "%3",
  panePid: 42,
  tty: "/dev/pts/3",
  shell: "bash",
  promptRow: 0,
  trailer: "",
  markStart: false,
  prompt: "$ ",
  typedStart: "",
  echoRows: 1,
  screenRows: 24
} as unknown as Run

const refused = (seen: string) =>
  answerRefusal(tmuxRefusal(`invalid option: lmcp-answer-refused:${seen}\n`), run, "python3")

describe("the answer's guard", () => {
  it("is a plain choice the PaneCommand grammar admits, expecting this run, no mode, no sync, the program", () => {
    const guard = answerGuard(run, "python3")
    assert.isUndefined(refusal("PaneCommand", guard), guard.join(" "))
    assert.include(guard[4], "#{==:#{@lmcp_claim}:#{pane_in_mode}:#{synchronize-panes}:#{pane_current_command}:")
    assert.include(guard[4], ",abc123:0:0:python3:},@lmcp_view_ok,lmcp-answer-refused:")
  })

  it("says what changed when tmux refused it, and nothing for any other failure", () => {
    assert.strictEqual(refused(":0:0:bash:"), "run abc123 ended as the answer was about to be typed")
    assert.strictEqual(refused("abc123:0:0:python3:0|12|3"), "run abc123 ended as the answer was about to be typed")
    assert.strictEqual(refused("abc123:1:0:python3:"), "the pane entered copy mode (or another tmux mode)")
    assert.strictEqual(refused("abc123:0:1:python3:"), "synchronize-panes was turned on in its window")
    assert.strictEqual(refused("abc123:0:0:bash:"), "the program in front changed as the answer was typed")
    assert.isUndefined(answerRefusal(tmuxRefusal("can't find pane: %3"), run, "python3"))
  })
})
