/**
 * The clock tick rate of /proc's times, read from the server's own auxiliary vector, is the one the
 * system's `getconf CLK_TCK` prints (which the server asked before, a child process on the thread
 * that answers requests).
 */
import { execFileSync } from "node:child_process"
import { assert, describe, it } from "vitest"
import { clockTicks } from "../../src/platform/Proc.ts"

describe("the clock tick rate", () => {
  it("is what getconf prints", () => {
    assert.strictEqual(clockTicks(), Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" })))
  })
})
