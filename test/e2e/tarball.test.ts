/**
 * Install without a registry entry, as the README says: its three commands run as written, `npm run
 * pack` in a copy of the checkout (npm runs the `prepack` script before a script named `pack` too),
 * `npm install -g` of the tarball in another folder, and the installed command. The packed
 * package.json is one npm would publish: no scripts, not private, the repository named. npm takes
 * the dependencies from its cache (`npm ci` filled it) and asks the registry only for what the
 * cache lacks (a fresh cache has the tarballs, not the registry's indexes).
 */
import { execFileSync } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { afterAll, assert, describe, it } from "vitest"
import { binPath, serverCacheVariable } from "../support/mcp.ts"

const root = join(binPath, "..", "..")
const dir = mkdtempSync(join(tmpdir(), "libtmux-mcp-pack-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"))
const version = manifest.version as string

/** The README's block of commands that makes and installs the tarball, one command a line. */
const readmeCommands = (): Array<string> => {
  const readme = readFileSync(join(root, "README.md"), "utf8")
  const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/gu)].map((match) => match[1]!)
    .find((text) => text.includes("npm run pack"))
  assert.isDefined(block, "the README shows `npm run pack` in a sh block")
  return block!.trimEnd().split("\n").map((line) => line.replaceAll("<version>", version))
}

/** A checkout as a clone has it, with dist/ built: what git keeps and the build made, nothing installed. */
const copyCheckout = (to: string) =>
  cpSync(root, to, {
    recursive: true,
    filter: (path) => {
      const name = relative(root, path)
      return !/^(?:node_modules|\.git|build|release|coverage)(?:\/|$)|\.tgz$/u.test(name)
    }
  })

/** Runs one of the README's lines in `sh`, as a person would paste it; npm asks nothing and writes no log here. */
const sh = (line: string, cwd: string, env: Readonly<Record<string, string>> = {}) =>
  execFileSync("sh", ["-c", line], {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      npm_config_update_notifier: "false",
      npm_config_audit: "false",
      npm_config_fund: "false",
      npm_config_prefer_offline: "true",
      // The installed command's compile cache goes to the run's (test/support/globalSetup.ts), not to
      // the home of the person running the tests.
      XDG_CACHE_HOME: process.env[serverCacheVariable],
      ...env
    },
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 120_000
  })

describe("the tarball the README makes", () => {
  it("is made by `npm run pack` as written, installs without building, and its command runs", () => {
    const [pack, install, check] = readmeCommands()
    assert.match(pack!, /^npm run pack\s/u)
    assert.match(install!, /^npm install -g \.\/libtmux-mcp-[0-9.]+\.tgz\s/u)
    assert.match(check!, /^libtmux-mcp --version\s/u)

    const checkout = join(dir, "checkout")
    copyCheckout(checkout)
    sh(pack!, checkout)
    const tarball = `libtmux-mcp-${version}.tgz`
    assert.include(readdirSync(checkout), tarball, "npm run pack wrote the tarball the README names")

    // No lifecycle script in the packed package.json, so npm has nothing to run or warn about at install.
    const packed = JSON.parse(
      execFileSync("tar", ["-xzOf", join(checkout, tarball), "package/package.json"], { encoding: "utf8" })
    )
    assert.isUndefined(packed.scripts, "the packed package.json carries no scripts")
    assert.isUndefined(packed.devDependencies)
    assert.isUndefined(packed.private, "npm would refuse to publish a private package")
    assert.strictEqual(packed.version, version)
    assert.strictEqual(packed.repository?.url, "git+https://github.com/tmux-python/libtmux-mcp.git")
    assert.strictEqual(packed.bugs?.url, "https://github.com/tmux-python/libtmux-mcp/issues")
    const listed = execFileSync("tar", ["-tzf", join(checkout, tarball)], { encoding: "utf8" }).split("\n")
    for (const file of ["LICENSE", "README.md", "SECURITY.md", "dist/libtmux-mcp.js"]) {
      assert.include(listed, `package/${file}`)
    }

    // The other machine: a folder holding only the tarball, and a prefix of its own for -g.
    const elsewhere = join(dir, "elsewhere")
    mkdirSync(elsewhere)
    cpSync(join(checkout, tarball), join(elsewhere, tarball))
    const prefix = join(dir, "prefix")
    sh(install!, elsewhere, { npm_config_prefix: prefix })
    const installed = join(prefix, "lib", "node_modules", "libtmux-mcp")
    // No build tools came with it: the tarball carries the built dist/.
    assert.notInclude(readdirSync(join(installed, "node_modules")), "typescript")

    const onPath = { PATH: `${join(prefix, "bin")}:${process.env.PATH}` }
    assert.strictEqual(sh(check!, elsewhere, onPath), `libtmux-mcp ${version}\n`)
    const printed = JSON.parse(sh("libtmux-mcp --print-config cursor", elsewhere, onPath))
    assert.deepStrictEqual(printed.mcpServers["libtmux-mcp"].args, [
      realpathSync(join(installed, "dist", "libtmux-mcp.js"))
    ])
  }, 150_000)

  it("is refused by plain `npm pack` in the checkout, whose package.json keeps its build scripts", () => {
    const checkout = join(dir, "plain")
    copyCheckout(checkout)
    let said = ""
    assert.throws(() => {
      try {
        sh("npm pack", checkout)
      } catch (error) {
        said = String((error as { stderr?: string }).stderr)
        throw error
      }
    })
    assert.include(said, "npm run pack")
    assert.notInclude(readdirSync(checkout).join(" "), ".tgz")
  }, 60_000)
})
