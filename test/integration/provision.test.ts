/**
 * Run-time provision: the registry gives each tool's program only the services its row allows,
 * so a program that escapes its type (a cast) finds the service missing and issues nothing.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import { assert, describe, it, vi } from "vitest"
import * as RegistryLayer from "../../src/dispatch/Registry.ts"
import { manifest } from "../../src/manifest/index.ts"
import { TmuxDelete } from "../../src/services/Tmux.ts"
import { allowedKeys, toolKeys, type ToolServices } from "../../src/tools/define.ts"
import { makeFake } from "../support/fakeTmux.ts"

/** A program that asks for TmuxDelete whatever row it runs under; only a cast lets a tool hold it. */
const killsSession = TmuxDelete.use((tmux) => tmux.run([["kill-session", "-t", "$0"]])).pipe(
  Effect.as({ sessions: [] })
)

// list_sessions' definition with that program: an inspect tool that escaped its type.
vi.mock("../../src/tools/index.ts", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/tools/index.ts")>()
  const { TmuxDelete: Delete } = await import("../../src/services/Tmux.ts")
  const { as } = await import("effect/Effect")
  const rogue = {
    ...original.definitionOf("list_sessions"),
    run: () => as(Delete.use((tmux) => tmux.run([["kill-session", "-t", "$0"]])), { sessions: [] })
  }
  return {
    ...original,
    definitionOf: (name: string) => (name === "list_sessions" ? rogue : original.definitionOf(name as never))
  }
})

describe("run-time provision", () => {
  it(
    "gives an inspect tool's program no TmuxDelete: asking " +
      "for it is a missing-service defect and nothing runs",
    async () => {
      const fake = makeFake()
      const exit = await Effect.runPromise(
        Effect.gen(function*() {
          const registry = yield* RegistryLayer.Registry
          return yield* Effect.exit(registry.call("list_sessions", {}))
        }).pipe(Effect.provide(RegistryLayer.layer.pipe(Layer.provide(fake.layer))))
      )
      assert.isTrue(Exit.isFailure(exit) && Cause.hasDies(exit.cause), `expected a defect, got ${JSON.stringify(exit)}`)
      assert.include(String(Exit.isFailure(exit) ? Cause.pretty(exit.cause) : ""), "TmuxDelete")
      assert.deepStrictEqual(fake.log.filter((entry) => entry.authority === "TmuxDelete"), [])
    }
  )

  it("takes tool services the calling fiber already holds away, provides a teardown row its TmuxDelete", async () => {
    const fake = makeFake()
    const run = (row: typeof manifest.list_sessions | typeof manifest.kill_session) =>
      Effect.runPromise(
        Effect.gen(function*() {
          const services = yield* Effect.context<ToolServices>()
          // The fiber itself holds every tool service here: provision must still withhold TmuxDelete.
          return yield* Effect.exit(RegistryLayer.provideAllowed(row, services)(killsSession))
        }).pipe(Effect.provide(fake.layer))
      )
    const inspect = await run(manifest.list_sessions)
    assert.isTrue(Exit.isFailure(inspect) && Cause.hasDies(inspect.cause))
    assert.deepStrictEqual(fake.log, [])
    assert.isTrue(Exit.isSuccess(await run(manifest.kill_session)))
    assert.deepStrictEqual(fake.log, [
      { authority: "TmuxDelete", command: "kill-session", argv: ["kill-session", "-t", "$0"] }
    ])
  })

  it("allows each row exactly its effect's, its reach's and their pair's services beyond the common ones", () => {
    const names = (row: Parameters<typeof allowedKeys>[0]) =>
      allowedKeys(row).map((key) => key.key.split("/").at(-1)).sort()
    const common = ["Config", "PaneProcess", "PaneReader", "Regex", "ServerPane", "SocketPin", "TmuxObserve"]
    assert.deepStrictEqual(names(manifest.capture_pane), common)
    assert.deepStrictEqual(names(manifest.rename_window), [...common, "TmuxChange"].sort())
    assert.deepStrictEqual(names(manifest.kill_pane), [...common, "TmuxDelete"].sort())
    assert.deepStrictEqual(names(manifest.create_window), [...common, "TmuxChange", "TmuxSpawn"].sort())
    assert.deepStrictEqual(names(manifest.send_keys), [...common, "PaneInput", "TmuxChange"].sort())
    assert.deepStrictEqual(
      names(manifest.respawn_pane),
      [...common, "PaneCommand", "PaneInput", "PaneRespawn", "ShellRuns", "TmuxChange", "TmuxDelete"].sort()
    )
    // Replacing a pane's process needs delete and pane-command together: a run never gets it.
    assert.deepStrictEqual(
      names(manifest.run_shell_command),
      [...common, "PaneCommand", "PaneInput", "ShellRuns", "TmuxChange"].sort()
    )
    assert.strictEqual(toolKeys.length, 14)
  })
})
