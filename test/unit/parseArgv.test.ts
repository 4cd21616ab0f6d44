/** Command-line edges a port onto node:util's parseArgs must keep (issue 37). */
import * as Result from "effect/Result"
import { assert, describe, it } from "vitest"
import { parseArgv } from "../../src/domain/argv.ts"

describe("parseArgv edges", () => {
  it("takes a value that starts with -", () => {
    const cli = Result.getOrThrow(parseArgv(["--socket", "-x"]))
    assert.strictEqual(cli.values.LIBTMUX_SOCKET, "-x")
  })
  it("takes an empty value after =", () => {
    const cli = Result.getOrThrow(parseArgv(["--socket="]))
    assert.strictEqual(cli.values.LIBTMUX_SOCKET, "")
  })
  it("reads -V and -v as --version", () => {
    assert.isTrue(Result.getOrThrow(parseArgv(["-V"])).version)
    assert.isTrue(Result.getOrThrow(parseArgv(["-v"])).version)
  })
  it("refuses grouped shorts and -- as unknown arguments", () => {
    assert.isTrue(Result.isFailure(parseArgv(["-hv"])))
    assert.isTrue(Result.isFailure(parseArgv(["--"])))
  })
})
