/**
 * The example on every tool page is what the tool returns: the examples are produced again against
 * scratch tmux servers and compared with docs/examples.json, from which scripts/docs.ts writes the
 * pages (`npm run check` holds the pages to that file; this test holds the file to the tools).
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "vitest"
import { toolNames } from "../../src/manifest/index.ts"
import { examplesPath, produceExamples } from "../support/examples.ts"

describe("tool page examples", () => {
  it("every tool's example is what the tool returns now, placeholders aside", { timeout: 120_000 }, async () => {
    const committed = JSON.parse(readFileSync(examplesPath, "utf8"))
    const live = await produceExamples()
    assert.deepStrictEqual(Object.keys(live), [...toolNames])
    for (const name of toolNames) {
      assert.deepStrictEqual(
        live[name],
        committed[name],
        `${name}'s example changed: run \`npm run docs:examples\` and commit docs/examples.json and the pages`
      )
    }
  })
})
