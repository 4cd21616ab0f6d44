/** Rows of a capture joined into lines where tmux says they wrap: `-N` rows beside the same rows with `-J`. */
import { assert, describe, it } from "vitest"
import { captureRows, joinedLines, trimSpaces, wrapsOf } from "../../src/domain/rows.ts"

describe("joinedLines", () => {
  it("joins the rows a line wrapped over, keeping the space at the wrap and trimming the end", () => {
    // A 10-column pane: "abcdGET / " fills a row, "HTTP  " is the next; a row of its own below.
    const cells = captureRows("abcdGET / \nHTTP  \n$ \n")
    const wraps = wrapsOf(cells, captureRows("abcdGET / HTTP  \n$ \n"))
    assert.deepStrictEqual(wraps, [true, false, false])
    assert.deepStrictEqual(joinedLines(cells, wraps), [{ text: "abcdGET / HTTP", rows: 2 }, { text: "$", rows: 1 }])
    assert.deepStrictEqual(cells.map(trimSpaces), ["abcdGET /", "HTTP", "$"])
  })

  it("ends the last line with the last row, even when tmux says it wraps on", () => {
    assert.deepStrictEqual(joinedLines(["0123456789", "ab"], [true, true]), [{ text: "0123456789ab", rows: 2 }])
    assert.deepStrictEqual(joinedLines([], []), [])
  })
})
