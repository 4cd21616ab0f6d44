/**
 * The run's templates (src/domain/runTemplates.ts) through the command grammar: the values the one
 * constructor builds are admitted, read back into the protocol's own commands; a value holding any
 * other command (one that runs on the host above all) is refused like any command list.
 */
import { assert, describe, it } from "vitest"
import { protocolNames } from "../../src/domain/protocolNames.ts"
import { template, templateCommands, templates } from "../../src/domain/runTemplates.ts"
import { reachesHost, refusal, templateForms } from "../../src/services/TmuxGrammar.ts"

const names = protocolNames("a1b2c3")
const store = (option: string, value: string) => ["set-option", "-p", "-t", "%4", option, value]

describe("a run's templates", () => {
  it("as built are admitted, and read back into the protocol's own commands", () => {
    for (const restore of [false, true]) {
      const { end, mark } = templates("a1b2c3", "%4", restore)
      assert.isUndefined(refusal("PaneCommand", store(names.template, end)))
      assert.isUndefined(refusal("PaneCommand", store(names.markTemplate, mark)))
    }
    assert.deepStrictEqual(templateCommands(templates("a1b2c3", "%4").end), [
      ["if-shell", "-F", "#{m:copy-mode*,#{@la1b2c3}}", "copy-mode -q -t %4 ; send-keys -t %4 C-c"],
      ["set-option", "-pu", "-t", "%4", "@lmcp_claim"],
      ["wait-for", "-S", "lmcp_a1b2c3"],
      ["set-option", "-pF", "-t", "%4", "@lmcp_end_a1b2c3", "#{history_size} #{cursor_y} #{cursor_x} 0"]
    ])
  })

  it("holding another command are refused: one that runs on the host, waits, or sets another option", () => {
    const refused = [
      "run-shell 'touch /tmp/x'",
      "set-option -pu -t %4 @lmcp_claim ; run-shell -b 'touch /tmp/x'",
      "wait-for lmcp_a1b2c3",
      "set-option -p -t %4 status-right '#(touch /tmp/x)'",
      "set -put%4 @lmcp_claim",
      "set-option -pu -t %4 @lmcp_claim ; \"run-shell\" x",
      "set-option -pu -t %4 @lmcp_claim ;; kill-server",
      "",
      // The answered test's if-shell, only as the template holds it: -F, its own test, the discard's list.
      "if-shell '#{m:copy-mode*,#{@la1b2c3}}' 'send-keys -t %4 C-c'",
      "if-shell -F '#{m:copy-mode*,#{@la1b2c3}}' 'run-shell \"touch /tmp/x\"'",
      "if-shell -F '#{m:copy-mode*,#{@la1b2c3}}' 'send-keys -t %4 C-c ; kill-server'",
      "if-shell -F '#{m:copy-mode*,#{@la1b2c3}}' 'send-keys -t %4 x'",
      "if-shell -F '#(touch /tmp/x)' 'send-keys -t %4 C-c'",
      "if-shell -F '#{m:copy-mode*,#{@lmcp_claim}}' 'send-keys -t %4 C-c'",
      "if-shell -F '#{m:*,#{@la1b2c3}}' 'send-keys -t %4 C-c'",
      "if-shell -F '#{m:copy-mode*,#{@la1b2c3}}' 'send-keys -t %4 C-c' 'run-shell x'"
    ]
    for (const value of refused) {
      assert.match(refusal("PaneCommand", store(names.template, value)) ?? "", /is not a run template/u, value)
      assert.match(refusal("PaneCommand", store(names.markTemplate, value)) ?? "", /is not a run template/u, value)
    }
  })

  it("come from a grammar that reaches nothing on the host", () => {
    assert.isFalse(reachesHost(templateForms))
    assert.isTrue(reachesHost({ ...templateForms, "run-shell": {} }))
    assert.isTrue(reachesHost({ ...templateForms, "if-shell": {} }))
  })

  it("quote what tmux would read otherwise, and refuse a word with a quote", () => {
    assert.strictEqual(template([["wait-for", "-S", "lmcp_a1b2c3"]]), "wait-for -S lmcp_a1b2c3")
    assert.throws(() => template([["set-option", "-pF", "-t", "%4", "@lmcp_end_a1b2c3", "it's"]]), /quote/u)
  })
})
