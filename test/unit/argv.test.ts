/**
 * The argv the tmux runner builds, checked against tmux's own splitting rule
 * (cmd-parse.y, cmd_parse_from_arguments): an argument ending in `;` ends the command there, and
 * a trailing `\;` stands for a literal `;`.
 */
import { prop } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { buildArgv, escapeArgument, execTmux } from "../../src/platform/TmuxExec.ts"

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
    assert.deepStrictEqual(buildArgv(["-L", "x"], [["list-sessions"], ["list-windows", "-a"]]), [
      "-u",
      "-L",
      "x",
      "list-sessions",
      ";",
      "list-windows",
      "-a"
    ])
  })

  it("escapes a trailing ; so a value never starts another command", () => {
    assert.strictEqual(escapeArgument("name;"), "name\\;")
    assert.strictEqual(escapeArgument("a;b"), "a;b")
  })

  prop("keeps every argument of every command intact through tmux's splitting", [
    Schema.Array(Schema.Array(Schema.String).check(Schema.isMinLength(1)))
  ], ([args]) => {
    const commands = args.map((rest) => ["cmd", ...rest])
    const argv = buildArgv([], commands).slice(1)
    assert.deepStrictEqual(splitModel(argv), commands)
  })
})

describe("execTmux failure types", () => {
  // A stand-in tmux that prints the given text on stderr and exits 1.
  const failingWith = (stderr: string) => {
    const dir = mkdtempSync(join(tmpdir(), "lmcp-fake-tmux-"))
    const bin = join(dir, "tmux")
    writeFileSync(bin, `#!/bin/sh\nprintf '%s\\n' ${JSON.stringify(stderr)} >&2\nexit 1\n`, { mode: 0o755 })
    return Effect.runPromise(Effect.flip(execTmux(bin, ["list-sessions"], "-L t"))).finally(() =>
      rmSync(dir, { recursive: true, force: true })
    )
  }

  it("types a server that is absent, or went away mid-command, as ServerNotRunning", async () => {
    for (
      const text of [
        "no server running on /tmp/x",
        "error connecting to /tmp/x (Connection refused)",
        "server exited unexpectedly",
        "lost server"
      ]
    ) {
      assert.strictEqual((await failingWith(text))._tag, "ServerNotRunning", text)
    }
  })

  it("keeps any other failure as TmuxCommandFailed with tmux's message", async () => {
    const error = await failingWith("can't find pane: %9")
    assert.strictEqual(error._tag, "TmuxCommandFailed")
    assert.include(error.message, "can't find pane: %9")
  })
})
