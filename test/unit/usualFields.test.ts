/**
 * No result carries a field that says nothing (src/programs/usual.ts), checked over the real result
 * of every tool that docs/examples.json holds (test/e2e/examples.test.ts holds that file to the
 * tools): no field is at the usual value its schema leaves out, and every `false` or empty list left
 * is one of the tmux facts or answers listed here, where that value is what the caller asked for.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "vitest"
import { usualOf, withoutUsual } from "../../src/programs/usual.ts"
import { registry } from "../../src/tools/index.ts"
import { examplesPath } from "../support/examples.ts"

/** Fields whose false or empty list is the fact itself: tmux's state, or the answer to a listing. */
const factual = new Set([
  // tmux's own pane and window state, as list_panes and get_pane_info report it.
  "is_caller",
  "pane_active",
  "pane_dead",
  "pane_in_mode",
  "alternate_on",
  // A nested MCP result's own flag (the batch returns each operation's result as MCP shapes it).
  "isError",
  // Listings: an empty list is the answer (no sessions, no matches, no hooks).
  "sessions",
  "windows",
  "panes",
  "matches",
  "hooks",
  "variables"
])

const examples = JSON.parse(readFileSync(examplesPath, "utf8")) as Record<
  string,
  ReadonlyArray<{ readonly result: unknown }>
>

/** Each place in `value` where `schema` marks a field usual and the value holds it. */
const atUsual = (schema: unknown, value: unknown, path: string): Array<string> => {
  const fields = (schema as { fields?: Record<string, unknown> } | undefined)?.fields
  const item = schema as { value?: unknown; ast?: { _tag?: string } } | undefined
  if (Array.isArray(value) && item?.ast?._tag === "Arrays") {
    return value.flatMap((entry, i) => atUsual(item.value, entry, `${path}[${i}]`))
  }
  if (fields === undefined || value === null || typeof value !== "object") return []
  return Object.entries(value).flatMap(([key, entry]) => {
    const usual = usualOf(fields[key])
    return [
      ...(usual !== undefined && JSON.stringify(entry) === JSON.stringify(usual.usual) ? [`${path}.${key}`] : []),
      ...atUsual(fields[key], entry, `${path}.${key}`)
    ]
  })
}

/** Each `false` or empty list in `value` outside the factual fields. */
const saysNothing = (value: unknown, path: string): Array<string> => {
  if (Array.isArray(value)) return value.flatMap((entry, i) => saysNothing(entry, `${path}[${i}]`))
  if (value === null || typeof value !== "object") return []
  return Object.entries(value).flatMap(([key, entry]) => [
    ...((entry === false || (Array.isArray(entry) && entry.length === 0)) && !factual.has(key)
      ? [`${path}.${key}`]
      : []),
    ...saysNothing(entry, `${path}.${key}`)
  ])
}

describe("fields that say nothing", () => {
  it("are left out of every tool's example result, at their usual value or false or empty", () => {
    for (const [name, definition] of Object.entries(registry)) {
      for (const example of examples[name] ?? []) {
        assert.deepStrictEqual(atUsual(definition.output, example.result, name), [], name)
        assert.deepStrictEqual(saysNothing(example.result, name), [], name)
      }
    }
  })

  it("are stripped by the value their schema marks, nested lists included", () => {
    const output = registry.search_panes.output
    const result = {
      matches: [{ pane_id: "%1", lines: ["a"], rows: [0], truncated_lines: 0 }],
      panes_searched: 1,
      panes_matched: 1,
      truncated_panes: 0,
      vanished_panes: []
    }
    assert.deepStrictEqual(withoutUsual(output, result), {
      matches: [{ pane_id: "%1", lines: ["a"], rows: [0] }],
      panes_searched: 1,
      panes_matched: 1
    })
    assert.deepStrictEqual(withoutUsual(output, { ...result, truncated_panes: 2, vanished_panes: ["%2"] }), {
      ...withoutUsual(output, result) as object,
      truncated_panes: 2,
      vanished_panes: ["%2"]
    })
  })
})
