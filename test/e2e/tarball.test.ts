/**
 * Install without a registry entry: the tarball `npm pack` makes installs into a fresh prefix with
 * no build step (dist/ is in it), and the installed command answers --version and --print-config
 * from the installed path. npm takes the dependencies from its cache (`npm ci` filled it) and asks
 * the registry only for what the cache lacks (a fresh cache has the tarballs, not the registry's indexes).
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "vitest"
import { binPath } from "../support/mcp.ts"

const root = join(binPath, "..", "..")
const dir = mkdtempSync(join(tmpdir(), "libtmux-mcp-pack-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const npm = (args: ReadonlyArray<string>, cwd: string) =>
  execFileSync("npm", [...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, npm_config_update_notifier: "false" },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 120_000
  })

describe("the npm pack tarball", () => {
  it("installs into a fresh prefix without building, and its command runs from there", () => {
    // dist/ is already built (npm test builds first): pack it as it is.
    execFileSync("node", [join(root, "scripts", "pack.ts"), dir], { cwd: root, stdio: "pipe" })
    const tarball = readdirSync(dir).find((name) => name.endsWith(".tgz"))!
    // No lifecycle script in the packed package.json, so npm has nothing to warn about at install.
    const packed = JSON.parse(
      execFileSync("tar", ["-xzOf", join(dir, tarball), "package/package.json"], { encoding: "utf8" })
    )
    assert.isUndefined(packed.scripts, "the packed package.json carries no scripts")
    assert.isUndefined(packed.devDependencies)
    const listed = execFileSync("tar", ["-tzf", join(dir, tarball)], { encoding: "utf8" }).split("\n")
    for (const file of ["LICENSE", "README.md", "SECURITY.md", "dist/libtmux-mcp.js"]) {
      assert.include(listed, `package/${file}`)
    }
    const prefix = join(dir, "prefix")
    npm([
      "install",
      "-g",
      "--prefix",
      prefix,
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      tarball
    ], dir)
    const installed = join(prefix, "lib", "node_modules", "libtmux-mcp")
    // No build tools came with it: the tarball carries the built dist/.
    assert.notInclude(readdirSync(join(installed, "node_modules")), "typescript")
    const command = join(prefix, "bin", "libtmux-mcp")
    const version = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version as string
    assert.strictEqual(execFileSync(command, ["--version"], { encoding: "utf8" }), `libtmux-mcp ${version}\n`)
    const printed = JSON.parse(execFileSync(command, ["--print-config", "cursor"], { encoding: "utf8", stdio: "pipe" }))
    assert.deepStrictEqual(printed.mcpServers["libtmux-mcp"].args, [
      realpathSync(join(installed, "dist", "libtmux-mcp.js"))
    ])
  }, 150_000)
})
