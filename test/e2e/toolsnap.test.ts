/**
 * What a model reads before its first call, held on purpose: the running server's `tools/list`
 * equals the committed toolsnap (test/toolsnap.json; `npm run toolsnap` rewrites it, and the diff
 * shows the change), and the part a model reads first stays within its byte budget.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"

const h = harness("toolsnap")

/** The most UTF-8 bytes of compact `{name, description, inputSchema}` for the default 47 tools (issue 12). */
const budgetBytes = 28 * 1024

describe("toolsnap", () => {
  it("tools/list equals the committed snapshot (update deliberately with npm run toolsnap)", async () => {
    const c = await h.connect(h.world(), { LIBTMUX_TOOLSETS: "inspect,manage,execute,teardown" })
    const live = JSON.parse(JSON.stringify((await c.client.listTools()).tools))
    const snapshot = JSON.parse(readFileSync(new URL("../toolsnap.json", import.meta.url), "utf8")).tools
    assert.deepStrictEqual(
      live,
      snapshot,
      "tools/list changed: run `npm run toolsnap` and commit test/toolsnap.json if the change is meant"
    )
  })

  it("keeps name, description and input schema of the default selection within 28 KiB", async () => {
    const c = await h.connect(h.world())
    const tools = (await c.client.listTools()).tools
    assert.strictEqual(tools.length, 47, "a fresh dedicated server's default is all four toolsets")
    const bytes = Buffer.byteLength(
      JSON.stringify(tools.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))),
      "utf8"
    )
    assert.isAtMost(bytes, budgetBytes, `${bytes} bytes`)
  })
})
