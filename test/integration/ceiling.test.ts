/**
 * A declared capability is a ceiling: every tool, run against a recording fake, issues only
 * commands of the authorities its manifest row allows, and each authority only its own commands.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { assert, describe, it } from "vitest"
import * as RegistryLayer from "../../src/layers/Registry.ts"
import { manifest, type ManifestRow } from "../../src/manifest/index.ts"
import {
  changeCommands,
  commandCommands,
  deleteCommands,
  inputCommands,
  observeCommands,
  spawnCommands
} from "../../src/services/Tmux.ts"
import { registeredNames } from "../../src/tools/index.ts"
import { makeFake } from "../support/fakeTmux.ts"
import { samples } from "../support/samples.ts"

const closedSets: Record<string, ReadonlyArray<string>> = {
  TmuxObserve: observeCommands,
  TmuxChange: changeCommands,
  TmuxSpawn: spawnCommands,
  TmuxDelete: deleteCommands,
  PaneInput: inputCommands,
  PaneCommand: commandCommands
}

const allowedAuthorities = (row: ManifestRow, effect: ReadonlyArray<string> = row.effect): ReadonlyArray<string> => [
  "TmuxObserve",
  ...(effect.includes("change") ? ["TmuxChange"] : []),
  ...(effect.includes("delete") ? ["TmuxDelete"] : []),
  ...(row.reach === "configured-process" ? ["TmuxSpawn"] : []),
  ...(row.reach === "pane-input" || row.reach === "pane-command" ? ["PaneInput"] : []),
  ...(row.reach === "pane-command" ? ["PaneCommand"] : [])
]

const call = (name: string, args: unknown) => {
  const fake = makeFake()
  return Effect.gen(function*() {
    const registry = yield* RegistryLayer.Registry
    return { outcome: yield* registry.call(name, args), log: fake.log }
  }).pipe(Effect.provide(RegistryLayer.layer.pipe(Layer.provide(fake.layer))))
}
const run = (name: string, args: unknown) => Effect.runPromise(call(name, args))

describe("authority ceiling", () => {
  it("has samples for every registered tool", () => {
    // An empty list would check nothing.
    assert.deepStrictEqual([...registeredNames].filter((name) => (samples[name] ?? []).length === 0), [])
  })

  for (const name of registeredNames) {
    it(`${name} issues only commands its row's authorities allow`, async () => {
      const allowed = allowedAuthorities(manifest[name])
      for (const args of samples[name] ?? []) {
        const { outcome, log } = await run(name, args)
        assert.strictEqual(
          outcome._tag,
          "Success",
          `${name} ${JSON.stringify(args)}: ${outcome._tag === "Failure" ? outcome.error.message : ""}`
        )
        assert.isAbove(log.length, 0, `${name} ran no tmux command`)
        for (const entry of log) {
          assert.include(allowed, entry.authority, `${name} used ${entry.authority}`)
          assert.isTrue(closedSets[entry.authority]?.includes(entry.command), `${entry.authority} ran ${entry.command}`)
        }
      }
    })
  }
})
