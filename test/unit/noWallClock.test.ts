/**
 * Tests assert outcomes, not durations: a latency requirement is tested by its outcome under a
 * generous bound (a request timeout), and its duration is measured by a script under `bench/`.
 * Deadlines for polling (`Date.now() + ...`) stay allowed: they bound a wait, they measure nothing.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { assert, describe, it } from "vitest"

const root = join(import.meta.dirname, "..")
const testFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? testFiles(join(dir, entry.name))
      : entry.name.endsWith(".test.ts")
      ? [join(dir, entry.name)]
      : []
  )

describe("tests measure no wall-clock time", () => {
  it("no test file reads a stopwatch", () => {
    // Spelled in pieces, so that this file does not find itself.
    const clocks = ["performance" + ".now(", "hr" + "time"]
    const found = testFiles(root).flatMap((file) =>
      clocks.filter((clock) => readFileSync(file, "utf8").includes(clock)).map((clock) =>
        `${relative(root, file)}: ${clock}`
      )
    )
    assert.deepStrictEqual(found, [])
  })
})
