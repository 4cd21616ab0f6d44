/**
 * Every configuration startup refuses, decided in process against a real tmux: startup fails with
 * a StartupError whose message (the line the bin prints after "libtmux-mcp: ") names what was
 * wrong and the valid set, and no tmux server was started. test/e2e/lifecycle.test.ts runs three
 * of them through the bin for the process's exit status and streams.
 */
import { existsSync } from "node:fs"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { assertRefused, startupErrorCases } from "../support/startupErrors.ts"

const h = harness("refused")

describe("startup refuses", () => {
  for (const { args, env, expected, label } of startupErrorCases) {
    it(`${label}, naming what was wrong, and starts no tmux server`, async () => {
      const world = h.world()
      await assertRefused(world, env, expected, args)
      assert.isFalse(existsSync(world.socketPath("libtmux-mcp")))
    })
  }
})
