/**
 * Every configuration startup refuses, decided in process against a real tmux: startup fails with
 * a StartupError whose message (the line the bin prints after "libtmux-mcp: ") names what was
 * wrong and the valid set, and no tmux server was started. test/e2e/lifecycle.test.ts runs three
 * of them through the bin for the process's exit status and streams.
 */
import * as Effect from "effect/Effect"
import { existsSync } from "node:fs"
import { afterEach, assert, describe, it } from "vitest"
import { startup } from "../../src/startup/Startup.ts"
import { serverEnv } from "../support/mcp.ts"
import { startupErrorCases } from "../support/startupErrors.ts"
import { makeWorld, type TmuxWorld } from "../support/tmux.ts"

const worlds: Array<TmuxWorld> = []
afterEach(() => {
  for (const world of worlds.splice(0)) world.dispose()
})

describe("startup refuses", () => {
  for (const { args, env, expected, label } of startupErrorCases) {
    it(`${label}, naming what was wrong, and starts no tmux server`, async () => {
      const world = makeWorld("refused")
      worlds.push(world)
      const failed = await Effect.runPromise(
        Effect.scoped(Effect.flip(startup(serverEnv(world, env), args, process.getuid?.() ?? 0)))
      )
      assert.strictEqual(failed._tag, "StartupError")
      for (const text of expected) assert.include(failed.message, text)
      assert.isFalse(existsSync(world.socketPath("libtmux-mcp")))
    })
  }
})
