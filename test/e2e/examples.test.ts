/**
 * The examples on every tool page are what the tools return: they are produced again against
 * scratch tmux servers and compared with docs/examples.json, from which scripts/docs.ts writes the
 * pages (`npm run check` holds the pages to that file; this test holds the file to the tools). A
 * tool that finds, reads or waits for something shows it found first, then the empty case where
 * the page has one.
 */
import { readFileSync } from "node:fs"
import { assert, beforeAll, describe, it } from "vitest"
import { toolNames } from "../../src/manifest/index.ts"
import { type Example, examplesPath, produceExamples } from "../support/examples.ts"

describe("tool page examples", () => {
  let live: Record<string, ReadonlyArray<Example>> = {}
  beforeAll(async () => {
    live = await produceExamples()
  }, 180_000)

  /** The structured results of a tool's examples, in page order. */
  const results = (name: string) => (live[name] ?? []).map((example) => example.result as Record<string, unknown>)

  it("every tool's examples are what the tools return now, placeholders aside", () => {
    const committed = JSON.parse(readFileSync(examplesPath, "utf8"))
    assert.deepStrictEqual(Object.keys(live), [...toolNames])
    for (const name of toolNames) {
      assert.deepStrictEqual(
        live[name],
        committed[name],
        `${name}'s example changed: run \`npm run docs:examples\` and commit docs/examples.json and the pages`
      )
    }
  })

  it("the tools that find, read or wait show what they found, then the empty case", () => {
    const summary = "tests: 41 passed, 2 failed"
    const [matched, timedOut] = results("wait_for_text")
    assert.strictEqual(matched?.outcome, "matched")
    assert.strictEqual(matched?.matched_line, summary)
    assert.include(matched?.new_lines as Array<string>, summary)
    assert.strictEqual(timedOut?.outcome, "timeout")
    const [found, none] = results("search_panes")
    assert.deepStrictEqual([found?.panes_matched, none?.panes_matched], [1, 0])
    assert.deepStrictEqual(results("wait_for_channel").map((result) => result.outcome), ["signalled", "timeout"])
    assert.include(results("capture_since")[0]?.output as string, summary)
    assert.include(results("capture_pane")[0]?.content as string, summary)
    assert.include(results("snapshot_pane")[0]?.content as string, summary)
    assert.strictEqual(results("find_pane_by_position")[0]?.pane_id, "%1")
    assert.deepStrictEqual(results("show_hooks")[0]?.hooks, [{
      name: "after-split-window",
      index: 0,
      command: "select-layout tiled"
    }])
    assert.strictEqual(results("clear_pane_scrollback")[0]?.lines_discarded, 20)
    const [held] = (results("get_server_info")[0]?.held_runs ?? []) as Array<unknown>
    assert.deepInclude(held, { pane_id: "%1", command_prefix: "sleep 30", holds_pane: true })
    assert.deepStrictEqual(toolNames.filter((name) => (live[name] ?? []).length === 0), [])
  })
})
