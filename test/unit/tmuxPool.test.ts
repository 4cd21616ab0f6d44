/**
 * The pool for short tmux invocations: at most `size` run at once, a queued invocation's timeout
 * starts only when it runs, and a blocking `wait-for` client takes no permit; the timeout itself
 * kills a client that does not answer, and not one that answered while the process was busy.
 */
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, assert, describe, it } from "vitest"
import { execTmux, makePool, poolSize } from "../../src/platform/TmuxExec.ts"
import { isBlocking } from "../../src/services/Tmux.ts"

const dir = mkdtempSync(join(tmpdir(), "lmcp-pool-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const log = join(dir, "log")
// A stand-in tmux: logs its start and end; a `wait-for` client stays 3 s, anything else 0.3 s.
const bin = join(dir, "tmux")
writeFileSync(
  bin,
  `#!/bin/sh\necho start >> '${log}'\ncase "$*" in *wait-for*) sleep 3 ;; *) sleep 0.3 ;; esac\necho end >> '${log}'\n`,
  { mode: 0o755 }
)

/** The most invocations that ran at once, from the log. */
const mostAtOnce = (): number => {
  let running = 0
  let most = 0
  for (const line of readFileSync(log, "utf8").trim().split("\n")) {
    running += line === "start" ? 1 : -1
    most = Math.max(most, running)
  }
  return most
}

describe("isBlocking", () => {
  it("is true only for a plain wait-for among the commands", () => {
    assert.isTrue(isBlocking([["wait-for", "chan"]]))
    assert.isTrue(isBlocking([["send-keys", "-t", "%1", "x"], ["wait-for", "chan"], ["capture-pane", "-p"]]))
    for (const flag of ["-S", "-L", "-U"]) assert.isFalse(isBlocking([["wait-for", flag, "chan"]]))
    assert.isFalse(isBlocking([["list-sessions"], ["display-message", "-p", "wait-for"]]))
  })
})

describe("poolSize", () => {
  it("grows with the machine and keeps a floor", () => {
    assert.strictEqual(poolSize(1), 4)
    assert.strictEqual(poolSize(16), 32)
  })
})

describe("makePool", () => {
  it("runs at most size invocations at once, each timed from when it runs, and lets a blocking one pass", async () => {
    writeFileSync(log, "")
    await Effect.runPromise(Effect.gen(function*() {
      const pooled = yield* makePool(2)
      const short = (i: number) =>
        pooled([["list-sessions"]], execTmux(bin, [`call-${i}`], "-L t", { timeoutMs: 1_000 }))
      // Twelve 0.3 s invocations through two permits take 1.8 s: the last waits 1.5 s for a permit,
      // and its 1 s timeout still holds because it counts from then.
      const results = yield* Effect.all(Array.from({ length: 12 }, (_, i) => short(i)), { concurrency: "unbounded" })
      assert.strictEqual(results.length, 12)
      assert.strictEqual(mostAtOnce(), 2)
      // Two blocking clients (3 s each) would hold both permits: a short invocation still runs before they end.
      const waiters = yield* Effect.forkChild(Effect.all(
        [0, 1].map(() => pooled([["wait-for", "chan"]], execTmux(bin, ["wait-for", "chan"], "-L t"))),
        { concurrency: "unbounded" }
      ))
      yield* Effect.sleep("100 millis")
      yield* pooled([["list-sessions"]], execTmux(bin, ["quick"], "-L t"))
      assert.isUndefined(waiters.pollUnsafe(), "the short invocation waited for the blocking ones")
      yield* Fiber.join(waiters)
    }))
  }, 20_000)
})

describe("execTmux's timeout", () => {
  it("kills a client that does not answer within it and says so", async () => {
    const hung = join(dir, "hung-tmux")
    writeFileSync(hung, `#!/bin/sh\nexec sleep 30\n`, { mode: 0o755 })
    const result = await Effect.runPromise(Effect.result(execTmux(hung, ["list-sessions"], "-L t", { timeoutMs: 100 })))
    assert.strictEqual(result._tag === "Failure" ? result.failure._tag : "answered", "TmuxTimedOut")
  })

  it("answers with what a client printed when the process was busy past the timeout as the client exited", async () => {
    const quick = join(dir, "quick-tmux")
    writeFileSync(quick, `#!/bin/sh\necho answered\n`, { mode: 0o755 })
    const answer = Effect.runPromise(Effect.result(execTmux(quick, ["list-sessions"], "-L t", { timeoutMs: 50 })))
    // The thread stays busy well past the timeout while the client runs and exits (a loaded machine,
    // a long synchronous step): when the loop turns again, its timer is due and the exit is waiting.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1_000)
    const result = await answer
    assert.deepStrictEqual(result._tag === "Success" ? result.success : result.failure, "answered\n")
  })
})
