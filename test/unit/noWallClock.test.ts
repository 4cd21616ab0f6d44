/**
 * Tests assert outcomes, not durations: a latency requirement is tested by its outcome under a
 * generous bound (a request timeout), and its duration is measured by a script under `bench/`.
 * Deadlines for polling (`Date.now() + ...`) stay allowed: they bound a wait, they measure nothing.
 * And tests that drive real processes wait for states, not for time: `until` in test/support/poll.ts
 * polls for a state with a deadline, `gap` is a delay that is itself the input; a fixed sleep
 * before an assertion is a guess that a loaded machine loses.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative } from "node:path"
import { assert, describe, it } from "vitest"
import { blank } from "../../scripts/boundaries.ts"

const root = join(import.meta.dirname, "..")
const testFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? testFiles(join(dir, entry.name))
      : entry.name.endsWith(".test.ts")
      ? [join(dir, entry.name)]
      : []
  )

/** The ways to wait a fixed time, found in code (comments and strings blanked). */
const sleeps: ReadonlyArray<readonly [string, RegExp]> = [
  // A timer whose callback is a bare function (resolve), or an arrow that only calls one with nothing.
  ["a timer that resolves a promise", /setTimeout\(\s*\w+\s*,/u],
  ["a timer that resolves a promise", /setTimeout\(\s*\(\)\s*=>\s*\w+\(\)\s*,/u],
  ["a sleep helper", /\bsleep\s*\(/u],
  ["a blocking wait", /Atomics\.wait\(/u]
]

/** Every fixed sleep in the end-to-end and integration tests (they drive real tmux and servers). */
export const fixedSleeps = (file: string, source: string): Array<string> => {
  const code = blank(source, true)
  const found = sleeps.filter(([, pattern]) => pattern.test(code)).map(([what]) => `${file}: ${what}`)
  return source.includes("timers/promises") ? [...found, `${file}: node:timers/promises`] : found
}

describe("tests measure no wall-clock time", () => {
  it("no test file reads a stopwatch", () => {
    // Spelled in pieces, so that this file does not find itself.
    const clocks = ["performance" + ".now(", "hr" + "time", "Date.now()" + " -"]
    const found = testFiles(root).flatMap((file) =>
      clocks.filter((clock) => readFileSync(file, "utf8").includes(clock)).map((clock) =>
        `${relative(root, file)}: ${clock}`
      )
    )
    assert.deepStrictEqual(found, [])
  })

  it("no end-to-end or integration test sleeps a fixed time: each waits for a state", () => {
    const found = ["e2e", "integration"].flatMap((dir) =>
      testFiles(join(root, dir)).flatMap((file) => fixedSleeps(relative(root, file), readFileSync(file, "utf8")))
    )
    assert.deepStrictEqual(found, [])
  })

  it("finds the sleeps it names and lets a polling deadline, a watchdog and a shell's sleep pass", () => {
    const caught = [
      "await new Promise((resolve) => setTimeout(resolve, 300))",
      "const pause = (ms) => new Promise((r) => setTimeout(() => r(), ms))",
      "await sleep(500)",
      "import { setTimeout } from \"node:timers/promises\""
    ].map((line) => fixedSleeps("x", line).length)
    assert.deepStrictEqual(caught, [1, 1, 1, 1])
    const passing = [
      "const deadline = Date.now() + 5_000",
      "const timer = setTimeout(() => child.kill(\"SIGKILL\"), ms)",
      "await run(c, pane, \"sleep 1; echo done\")",
      "// sleep(300) was here"
    ].flatMap((line) => fixedSleeps("x", line))
    assert.deepStrictEqual(passing, [])
  })
})
