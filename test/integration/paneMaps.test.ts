/**
 * The live layers' per-pane memory does not outlive its panes: a turn is kept only while a call
 * holds or waits for it, and a read that finds its pane gone forgets the pane's history size.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import { PaneId } from "../../src/domain/ids.ts"
import * as PaneReaderLive from "../../src/layers/PaneReaderLive.ts"
import * as ShellRunsLive from "../../src/layers/ShellRunsLive.ts"
import { ServerPane } from "../../src/services/ServerPane.ts"
import { SocketPin } from "../../src/services/SocketPin.ts"
import { makeAuthorities } from "../../src/services/Tmux.ts"
import { FS, RS } from "../../src/services/TmuxReads.ts"
import { fakeSocketPin } from "../support/fakeTmux.ts"

const pane = (id: string) => Schema.decodeSync(PaneId)(id)

describe("per-pane memory", () => {
  it.effect("keeps a pane's turn only while a call holds or waits for it", () =>
    Effect.gen(function*() {
      const runs = ShellRunsLive.make()
      yield* runs.service.exclusive(pane("%1"), 1000, Effect.void)
      // One call holds %2 while another waits and gives up, and a third is interrupted while waiting.
      const held = yield* Effect.forkChild(runs.service.exclusive(pane("%2"), 1000, Effect.never))
      yield* Effect.yieldNow
      assert.strictEqual(runs.turns(), 1)
      const waiter = yield* Effect.forkChild(runs.service.exclusive(pane("%2"), 60_000, Effect.void))
      yield* Effect.yieldNow
      yield* runs.service.exclusive(pane("%2"), 0, Effect.void)
      yield* Fiber.interrupt(waiter)
      assert.strictEqual(runs.turns(), 1)
      yield* Fiber.interrupt(held)
      assert.strictEqual(runs.turns(), 0)
    }))

  it.effect("forgets a pane's history size once a read finds the pane gone", () =>
    Effect.gen(function*() {
      let gone = false
      const answer = (argv: ReadonlyArray<string>) =>
        gone ? "" : argv[0] === "display-message" ? `%1${FS}${[42, 0, 0, 10, 3, 7].join(FS)}${RS}\n` : "$ \n"
      const context = makeAuthorities({
        run: (commands) => Effect.succeed(commands.map(answer).join("")),
        spawn: (commands) => Effect.succeed(commands.map(answer).join("")),
        create: () => Effect.die("no spawn here")
      }).pipe(
        Context.add(SocketPin, fakeSocketPin),
        Context.add(ServerPane, { panes: Effect.succeed([]), oneAtATime: (effect) => effect })
      )
      const reader = yield* PaneReaderLive.make.pipe(Effect.provideContext(context))
      const view = yield* reader.service.read(pane("%1"))
      assert.strictEqual(view.historySize, 10)
      assert.strictEqual(reader.panes(), 1)
      gone = true
      yield* Effect.flip(reader.service.read(pane("%1")))
      assert.strictEqual(reader.panes(), 0)
    }))
})
