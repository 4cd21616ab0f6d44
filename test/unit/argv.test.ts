/**
 * The argv the tmux runner builds, checked against tmux's own splitting rule
 * (cmd-parse.y, cmd_parse_from_arguments): an argument ending in `;` ends the command there, and
 * a trailing `\;` stands for a literal `;`.
 */
import * as Schema from "effect/Schema"
import { prop } from "@effect/vitest"
import { assert, describe, it } from "vitest"
import { buildArgv, escapeArgument } from "../../src/layers/TmuxExec.ts"

/** tmux's split of an argv into commands. */
const splitModel = (argv: ReadonlyArray<string>): Array<Array<string>> => {
  const commands: Array<Array<string>> = [[]]
  for (const raw of argv) {
    let arg = raw
    let end = false
    if (arg.endsWith(";")) {
      arg = arg.slice(0, -1)
      if (arg.endsWith("\\")) arg = `${arg.slice(0, -1)};`
      else end = true
    }
    if (!end || arg !== "") commands.at(-1)!.push(arg)
    if (end) commands.push([])
  }
  return commands.filter((command) => command.length > 0)
}

describe("buildArgv", () => {
  it("forces UTF-8 output, then the pinning flags, then the commands", () => {
    assert.deepStrictEqual(buildArgv(["-L", "x"], [["list-sessions"], ["list-windows", "-a"]]), ["-u", "-L", "x", "list-sessions", ";", "list-windows", "-a"])
  })

  it("escapes a trailing ; so a value never starts another command", () => {
    assert.strictEqual(escapeArgument("name;"), "name\\;")
    assert.strictEqual(escapeArgument("a;b"), "a;b")
  })

  prop("keeps every argument of every command intact through tmux's splitting", [Schema.Array(Schema.Array(Schema.String).check(Schema.isMinLength(1)))], ([args]) => {
    const commands = args.map((rest) => ["cmd", ...rest])
    const argv = buildArgv([], commands).slice(1)
    assert.deepStrictEqual(splitModel(argv), commands)
  })
})
