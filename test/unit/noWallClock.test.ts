/**
 * Tests assert outcomes, not durations: a latency requirement is tested by its outcome under a
 * generous bound (a request timeout), and its duration is measured by a script under `bench/`.
 * Deadlines for polling (`Date.now() + ...`) stay allowed: they bound a wait, they measure nothing.
 * And tests that drive real processes wait for states, not for time: `until` in test/support/poll.ts
 * polls for a state with a deadline, `holdsFor` checks through a window that something does not
 * happen; a fixed sleep before an assertion is a guess that a loaded machine loses.
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

/**
 * The timers a test could pause with, found in code (comments and strings blanked): end-to-end and
 * integration tests pause only through test/support/poll.ts (`until` for a state, `holdsFor` for a
 * window in which something must not happen), so any other timer is refused, whatever its name.
 */
const sleeps: ReadonlyArray<readonly [string, RegExp]> = [
  [
    "a timer (wait for a state with until, or hold a window with holdsFor)",
    /\bset(?:Timeout|Interval)\s*\(/u
  ],
  ["a sleep helper", /\b(?:sleep|gap|pause|delay|wait)\s*\(/u],
  ["a blocking wait", /Atomics\.wait\(/u]
]

/** Every fixed sleep in the end-to-end and integration tests (they drive real tmux and servers). */
export const fixedSleeps = (file: string, source: string): Array<string> => {
  const code = blank(source, true)
  const found = sleeps.filter(([, pattern]) => pattern.test(code)).map(([what]) => `${file}: ${what}`)
  return /timers\/promises|from "node:timers"/u.test(source) ? [...found, `${file}: node:timers`] : found
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

  it("finds every timer and sleep by any name, and lets a polling deadline, a window and a shell's sleep pass", () => {
    const caught = [
      "await new Promise((resolve) => setTimeout(resolve, 300))",
      "const pause = (ms) => new Promise((r) => setTimeout(() => r(), ms))",
      "const timer = setTimeout(() => child.kill(\"SIGKILL\"), ms)",
      "setInterval(check, 50)",
      "await sleep(500)",
      "await gap(300)",
      "await delay(1_500)",
      "yield* Effect.sleep(\"1 second\")",
      "import { setTimeout } from \"node:timers/promises\""
    ].map((line) => fixedSleeps("x", line).length)
    assert.deepStrictEqual(caught, [1, 1, 1, 1, 1, 1, 1, 1, 1])
    const passing = [
      "const deadline = Date.now() + 5_000",
      "await holdsFor(300, \"no tmux client is started\", () => invocations() === before)",
      "await until(\"the prompt\", () => screen(world, pane), (text) => text.endsWith(\"$ \"))",
      "await run(c, pane, \"sleep 1; echo done\")",
      "// sleep(300) was here"
    ].flatMap((line) => fixedSleeps("x", line))
    assert.deepStrictEqual(passing, [])
  })
})
