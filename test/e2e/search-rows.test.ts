/**
 * search_panes says where each match is: the row it starts on, as capture_pane's start and end
 * count rows, so an agent can read the context around a hit.
 */
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { call, structured } from "../support/mcp.ts"
import { shellEnv } from "../support/shells.ts"

const h = harness("search-rows")

describe("search_panes rows", () => {
  it(
    "gives each matching line the row capture_pane reads it " +
      "at, on the screen and in history, wrapped lines included",
    async () => {
      const world = h.world()
      const c = await h.connect(world, shellEnv(world, "/bin/bash"))
      const pane = structured(await call(c, "create_session", { session_name: "rows", width: 40, height: 10 }))
        .pane_id as string
      // A wrapped line (90 cells: three rows at width 40) among marked lines, enough to push some into history.
      const command =
        "for i in $(seq 1 30); do echo mark-$i; done; printf 'wide-%.0s' $(seq 1 18); echo; echo mark-last"
      await call(c, "run_shell_command", { pane_id: pane, command })
      const found = structured(
        await call(c, "search_panes", {
          pattern: "mark-|wide-",
          regex: true,
          history_lines: 200,
          max_lines_per_pane: 100
        })
      )
      const match = found.matches[0]
      assert.strictEqual(match.rows.length, match.lines.length)
      assert.isTrue(match.rows.some((row: number) => row < 0), "some matches are in history")
      for (const [i, line] of (match.lines as Array<string>).entries()) {
        const row = match.rows[i] as number
        const read = structured(
          await call(c, "capture_pane", { pane_id: pane, start: row, end: row + 2, join_wrapped: true })
        )
        assert.strictEqual(read.content.split("\n")[0].trimEnd(), line.trimEnd(), `row ${row}`)
      }
      const wide = (match.lines as Array<string>).findIndex((line) => line.startsWith("wide-"))
      assert.strictEqual(match.rows[wide + 1], match.rows[wide] + 3, "the wrapped line takes three rows")
    }
  )
})
