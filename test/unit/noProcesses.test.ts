/**
 * The unit tier runs pure logic: no file of it starts a process (a shell, tmux, Node), so it stays
 * fast and its failures name logic, not a machine. Tests that need a process live in
 * test/integration or test/e2e.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"

const unit = import.meta.dirname
// The support modules whose helpers start shells, tmux servers or server processes.
const starters = [
  /from "node:child_process"/u,
  new RegExp(
    `from "\\.\\./support/(${
      ["harness", "hubHosts", "inPane", "inProcess", "mcp", "paneRelay", "rawServer", "runs", "shells", "sshd"]
        .concat(["startupErrors", "tmux"]).join("|")
    })\\.ts"`,
    "u"
  )
]

describe("the unit tier", () => {
  it("imports nothing that starts a process", () => {
    const offenders = readdirSync(unit).filter((name) => name.endsWith(".ts") && name !== "noProcesses.test.ts")
      .flatMap((name) => {
        const source = readFileSync(join(unit, name), "utf8")
        return starters.filter((pattern) => pattern.test(source)).map((pattern) => `${name}: ${pattern.source}`)
      })
    assert.deepStrictEqual(offenders, [])
  })
})
