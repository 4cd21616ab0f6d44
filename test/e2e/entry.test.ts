/**
 * The entry point before the server runs: a Node older than the floor, and a copy of dist/ whose
 * dependencies are missing, each end with one line on stderr that says what is wrong and a
 * non-zero exit, never a stack trace or a silent exit 0.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { nodeNewEnough } from "../../src/domain/nodeFloor.ts"
import { binPath, serverCacheVariable } from "../support/mcp.ts"

const root = join(binPath, "..", "..")

// Its own TMUX_TMPDIR: a run that got as far as the socket probe never looks at the user's server.
const run = (node: string, args: ReadonlyArray<string>, cwd = tmpdir()) =>
  spawnSync(node, [...args], {
    encoding: "utf8",
    input: "",
    cwd,
    // The run's compile cache (test/support/globalSetup.ts), not one in the home of the person testing.
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TMUX_TMPDIR: cwd,
      XDG_CACHE_HOME: process.env[serverCacheVariable]
    },
    timeout: 20_000
  })

const lines = (text: string) => text.split("\n").filter((line) => line !== "")

// A Node 20 stand-in on any machine: process.versions says 20.0.0 before the entry runs.
const oldNodeStub = `data:text/javascript,${
  encodeURIComponent("Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.0.0' } })")
}`

describe("the entry under a Node older than the floor", () => {
  it("links nothing before its check: its only import is the dynamic one of the server", () => {
    const source = readFileSync(binPath, "utf8")
    assert.notMatch(source, /^\s*import\s*(?:[{*\w"'])/mu)
    assert.match(source, /import\("\.\/libtmux-mcp-start\.js"\)/u)
    // Nor syntax a Node before 14 cannot parse, which would fail before the check runs.
    assert.notMatch(source, /\?\?|\?\./u)
  })

  it("prints one line naming the Node found, the version needed and how to get it, and exits 1", () => {
    const result = run(process.execPath, ["--import", oldNodeStub, binPath, "--version"])
    assert.strictEqual(result.status, 1, result.stderr)
    assert.strictEqual(result.stdout, "")
    assert.deepStrictEqual(lines(result.stderr), [
      `libtmux-mcp: Node 20.0.0 (${process.execPath}) is too old; libtmux-mcp needs Node >= 22.19.0: ` +
      "get one with `. scripts/node24.sh` in a checkout (see the README), or install Node 24 LTS"
    ])
  })

  const systemNode = "/usr/bin/node"
  const systemVersion = existsSync(systemNode) ? execFileSync(systemNode, ["--version"], { encoding: "utf8" }) : ""
  it.runIf(systemVersion !== "" && !nodeNewEnough(systemVersion.trim()))(
    "says the same under the system's own older Node, without a stack trace",
    () => {
      for (const args of [["--version"], []]) {
        const result = run(systemNode, [binPath, ...args])
        assert.strictEqual(result.status, 1, result.stderr)
        assert.strictEqual(result.stdout, "")
        assert.lengthOf(lines(result.stderr), 1, result.stderr)
        assert.include(result.stderr, `Node ${systemVersion.trim().slice(1)} (${systemNode}) is too old`)
      }
    }
  )
})

describe("dist/ without its dependencies", () => {
  it("exits 1 with one line on stderr naming the module that does not load, stdout empty", () => {
    const dir = mkdtempSync(join(tmpdir(), "libtmux-mcp-bare-"))
    try {
      for (const part of ["dist", "share", "package.json"]) {
        cpSync(join(root, part), join(dir, part), { recursive: true })
      }
      const result = run(process.execPath, [join(dir, "dist", "libtmux-mcp.js")], dir)
      assert.strictEqual(result.status, 1, result.stderr)
      assert.strictEqual(result.stdout, "")
      assert.lengthOf(lines(result.stderr), 1, result.stderr)
      assert.match(result.stderr, /^libtmux-mcp: starting the server failed: .*'re2js'.*run npm ci/u)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
