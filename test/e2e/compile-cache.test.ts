/**
 * Node's compile cache: the server keeps V8's compiled code in a folder of the user's, and starts
 * the same way when that folder cannot be written.
 */
import { existsSync, readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"

const h = harness("cc")

describe("compile cache", () => {
  it("is written under $XDG_CACHE_HOME/libtmux-mcp/compile-cache", async () => {
    const world = h.world()
    const folder = join(world.dir, "cache", "libtmux-mcp", "compile-cache")
    const c = await h.connect(world, { XDG_CACHE_HOME: join(world.dir, "cache") })
    assert.lengthOf((await c.client.listTools()).tools, 47)
    await c.close()
    assert.isTrue(existsSync(folder), `${folder} exists`)
    const versions = readdirSync(folder)
    assert.lengthOf(versions, 1)
    assert.isNotEmpty(readdirSync(join(folder, versions[0]!)))
  })

  it("that cannot be written leaves startup as it was: the ready line, all tools, nothing more on stderr", async () => {
    const world = h.world()
    const blocker = join(world.dir, "not-a-folder")
    writeFileSync(blocker, "")
    const c = await h.connect(world, { XDG_CACHE_HOME: blocker })
    assert.lengthOf((await c.client.listTools()).tools, 47)
    const lines = c.stderr().split("\n").filter((line) => line !== "")
    assert.match(lines[0] ?? "", /^libtmux-mcp ready /u)
    assert.notInclude(c.stderr(), "not-a-folder")
    assert.notMatch(c.stderr(), /cache/iu)
  })
})
