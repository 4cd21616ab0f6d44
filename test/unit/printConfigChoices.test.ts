/**
 * `--print-config` refuses a setting from a closed set with a value the server would refuse at
 * startup (LIBTMUX_TRANSPORT, LIBTMUX_ADOPT, LIBTMUX_LEASE), naming the valid values, instead of
 * printing an entry that cannot start.
 */
import * as Result from "effect/Result"
import { assert, describe, it } from "vitest"
import { printConfigInvocation } from "../../src/domain/printConfig.ts"
import { choices } from "../../src/domain/settingRules.ts"

describe("--print-config with a closed-set setting", () => {
  it("refuses a value outside the set, naming the valid ones, and prints one inside it", () => {
    for (const [variable, valid] of Object.entries(choices)) {
      const refused = printConfigInvocation("cursor", { [variable]: "bogus" }, undefined, {}, "/")
      assert.isTrue(Result.isFailure(refused), variable)
      if (Result.isFailure(refused)) {
        assert.include(refused.failure.message, `${variable} "bogus" is not valid; use ${valid.join(" or ")}`)
      }
      const printed = printConfigInvocation("cursor", { [variable]: valid.at(-1)! }, undefined, {}, "/")
      assert.isTrue(Result.isSuccess(printed), variable)
    }
  })
})
