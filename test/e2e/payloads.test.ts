/**
 * Payloads at the edges of what tmux carries: multi-byte text past tmux's 16 KiB message limit is
 * delivered whole, what tmux cannot carry (NUL) is refused before anything is sent, and no path
 * prints a payload on stderr.
 */
import * as Cause from "effect/Cause"
import { assert, describe, it } from "vitest"
import { defectSummary } from "../../src/layers/McpServer.ts"
import { call, type Connected, textOf } from "../support/mcp.ts"
import { run, runHarness } from "../support/runs.ts"

const { open: openPane } = runHarness("payloads")
/**
 * A pane whose shell is at its prompt: keys typed into a shell still starting land in the
 * terminal's line buffer, which keeps 4 KiB of a line and drops the rest.
 */
const open = async () => {
  const opened = await openPane()
  await run(opened.c, opened.pane, "true")
  return opened
}
const tag = (result: { readonly _meta?: Record<string, unknown> | undefined }) =>
  result._meta?.["com.git-pull.libtmux-mcp/error"]

/** The pane's rows once one of them is `row` (the shell takes a while to echo thousands of wide characters). */
const rowsOnceShown = async (c: Connected, pane: string, row: string) => {
  let rows: Array<string> = []
  for (let tries = 0; tries < 250 && !rows.includes(row); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    rows = ((await call(c, "capture_pane", { pane_id: pane, start: -1000, max_lines: 5000 })).structuredContent as {
      content: string
    }).content.split("\n")
  }
  return rows
}

describe("multi-byte payloads", () => {
  it("send_keys delivers the 10,000 characters its schema allows, three-byte ones included", async () => {
    const { c, pane } = await open()
    const text = "二".repeat(9_970)
    const sent = await call(c, "send_keys", { pane_id: pane, keys: `printf %s '${text}' | wc -c`, literal: true })
    assert.isNotTrue(sent.isError, textOf(sent))
    assert.include(await rowsOnceShown(c, pane, "29910"), "29910")
  })

  it("send_keys_batch sends nothing when an operation can't be carried, and every operation when all can", async () => {
    const { c, pane } = await open()
    const refused = await call(c, "send_keys_batch", {
      operations: [{ pane_id: pane, keys: "echo first-op", literal: true }, { pane_id: pane, keys: "a\u0000b" }]
    })
    assert.strictEqual(tag(refused), "InputInvalid")
    assert.include(textOf(refused), "NUL")
    const screen = await call(c, "capture_pane", { pane_id: pane })
    assert.notInclude(textOf(screen), "first-op")
    const big = "語".repeat(6_000)
    const sent = await call(c, "send_keys_batch", {
      operations: [{ pane_id: pane, keys: `echo ${big} | wc -c`, literal: true }, {
        pane_id: pane,
        keys: "echo second-op",
        literal: true
      }]
    })
    assert.isNotTrue(sent.isError, textOf(sent))
    const rows = await rowsOnceShown(c, pane, "second-op")
    // The second line is typed ahead while the first runs: the terminal may echo it on the row the
    // first command's output then completes.
    assert.isTrue(rows.some((row) => row.endsWith("18001")), rows.slice(-10).join("\n"))
    assert.include(rows, "second-op")
  })
})

describe("NUL and defects", () => {
  it("refuses NUL in keys and in respawn_pane's command, naming it, and prints no payload on stderr", async () => {
    const { c, pane } = await open()
    const secret = "s3cret-payload"
    for (
      const [name, args] of [
        ["send_keys", { pane_id: pane, keys: `${secret}\u0000x` }],
        ["respawn_pane", { pane_id: pane, command: `${secret}\u0000x`, kill: true }]
      ] as const
    ) {
      const result = await call(c, name, args)
      assert.strictEqual(tag(result), "InputInvalid", name)
      assert.include(textOf(result), "NUL")
    }
    assert.notInclude(c.stderr(), secret)
  })

  it("prints a defect's name and stack frames, never its message", () => {
    const summary = defectSummary(Cause.die(new TypeError("argument 'abc s3cret' must be a string without null bytes")))
    assert.include(summary, "TypeError")
    assert.notInclude(summary, "s3cret")
  })
})
