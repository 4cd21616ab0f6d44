/**
 * `npm run pack [-- DESTINATION]`: the installable tarball. Packs a copy of the built package whose
 * package.json keeps no scripts and no development fields, so installing it builds nothing and npm
 * warns about no lifecycle script, and is not private, so `npm publish` takes the tarball (the
 * checkout's stays private: publishing it would ship the build scripts). Prints the tarball's path.
 */
import { execFileSync } from "node:child_process"
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

const root = resolve(import.meta.dirname, "..")
const destination = resolve(process.argv[2] ?? root)
if (!existsSync(join(root, "dist", "libtmux-mcp.js"))) {
  console.error("pack: dist/ is not built; run `npm run build` first")
  process.exit(1)
}
const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, unknown> & {
  readonly files: ReadonlyArray<string>
}
const { scripts: _scripts, devDependencies: _dev, allowScripts: _allow, private: _private, ...packed } = manifest
// npm always packs README and LICENSE; the changes and the security policy are named.
const files = [...manifest.files, "CHANGES.md", "SECURITY.md"]
const stage = mkdtempSync(join(tmpdir(), "libtmux-mcp-stage-"))
try {
  for (const entry of [...files, "README.md", "LICENSE"]) {
    cpSync(join(root, entry), join(stage, entry), { recursive: true })
  }
  writeFileSync(join(stage, "package.json"), `${JSON.stringify({ ...packed, files }, null, 2)}\n`)
  const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", destination, stage], {
    encoding: "utf8",
    env: { ...process.env, npm_config_update_notifier: "false" }
  }).trim().split("\n").at(-1)!
  console.log(join(destination, name))
} finally {
  rmSync(stage, { recursive: true, force: true })
}
