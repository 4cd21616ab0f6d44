/**
 * A declared capability is a ceiling, down to the flag: every tool's samples run against a
 * recording fake built through the contract's one constructor (`makeAuthorities`, as the live layer
 * is), so a command outside its authority's grammar ends the call. Each command issued is then
 * held to the row by what it does to tmux, read from tmux's semantics here rather than from the
 * authority table: a delete needs the delete effect, input reach pane-input or pane-command, a
 * spawn reach configured-process, and nothing runs a command on the host.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { assert, describe, it } from "vitest"
import * as RegistryLayer from "../../src/dispatch/Registry.ts"
import { manifest, type ManifestRow } from "../../src/manifest/index.ts"
import { refusal } from "../../src/services/TmuxGrammar.ts"
import { allowedKeys } from "../../src/tools/define.ts"
import { registeredNames } from "../../src/tools/index.ts"
import { makeFake } from "../support/fakeTmux.ts"
import { samples } from "../support/samples.ts"

type Does = "observe" | "change" | "delete" | "input" | "spawn" | "host"

/** What one tmux command does, by tmux's own semantics. */
const does = (argv: ReadonlyArray<string>): Does => {
  const [name = "", ...args] = argv
  if (["run-shell", "if-shell", "pipe-pane", "display-popup", "source-file", "set-hook", "bind-key"].includes(name)) {
    return "host"
  }
  if (/^(list-|show-|has-session|capture-pane)/u.test(name)) return "observe"
  if (name === "display-message") return args.includes("-I") ? "input" : "observe"
  if (/^kill-|^clear-history$|^respawn-/u.test(name)) return "delete"
  if (["new-session", "new-window", "split-window"].includes(name)) return "spawn"
  if (name === "send-keys") {
    if (!args.includes("-X")) return "input"
    return args.some((arg) => /pipe/u.test(arg)) ? "host" : "change"
  }
  if (["load-buffer", "paste-buffer", "delete-buffer"].includes(name)) return "input"
  if (name === "set-option") {
    // A user option, a flag or number option tmux never expands, a format option set to expand to
    // nothing, or a guard's choice between a user option and another, or a name no option has (the
    // typing guard's comparison; the collection's test of the run's record).
    const guard = /^#\{\?(#\{==:[^(]*\}|@lmcp_[a-z0-9_]+),@lmcp_[a-z_]+,(lmcp-|@lmcp_)/u
    const inert = /^(@|mouse$|history-limit$|synchronize-panes$|remain-on-exit$)/u
    const emptyFormat = args.at(-2) === "remain-on-exit-format" && args.at(-1) === ""
    if (!emptyFormat && !args.some((arg) => inert.test(arg) || guard.test(arg))) return "host"
  }
  return "change"
}

/** Whether a row may do it. */
const mayDo = (row: ManifestRow, what: Does): boolean => {
  const effects: ReadonlyArray<string> = row.effect
  switch (what) {
    case "observe":
      return true
    case "change":
      return effects.includes("change")
    case "delete":
      return effects.includes("delete")
    case "input":
      return row.reach === "pane-input" || row.reach === "pane-command"
    case "spawn":
      return row.reach === "configured-process"
    case "host":
      return false
  }
}

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

  it("tells each kind of command apart, so the checks below can fail", () => {
    assert.deepStrictEqual(
      [
        ["send-keys", "-X", "-t", "%0", "copy-pipe"],
        ["set-option", "-g", "status-right", "#(true)"],
        ["respawn-pane", "-k", "-t", "%0"],
        ["display-message", "-I", "-t", "%0"],
        ["send-keys", "-t", "%0", "ls"],
        ["split-window", "-t", "%0"],
        ["set-option", "-g", "mouse", "on"],
        ["display-message", "-p", "-t", "%0", "#{pane_id}"]
      ].map(does),
      ["host", "host", "delete", "input", "input", "spawn", "change", "observe"]
    )
  })

  for (const name of registeredNames) {
    it(`${name} issues only what its row's grammar and effect allow`, async () => {
      const row = manifest[name]
      const services = allowedKeys(row).map((key) => key.key.split("/").at(-1))
      for (const args of samples[name] ?? []) {
        const { outcome, log } = await run(name, args)
        assert.strictEqual(
          outcome._tag,
          "Success",
          `${name} ${JSON.stringify(args)}: ${outcome._tag === "Failure" ? outcome.error.message : ""}`
        )
        assert.isAbove(log.length, 0, `${name} ran no tmux command`)
        for (const entry of log) {
          assert.include(services, entry.authority, `${name} used ${entry.authority}`)
          assert.isUndefined(refusal(entry.authority, entry.argv), `${entry.authority} ran ${entry.argv.join(" ")}`)
          const what = does(entry.argv)
          assert.isTrue(
            mayDo(row, what),
            `${name} (${row.effect.join("+")}, ${row.reach}) did ${what} ${
              JSON.stringify(entry.argv)
            }: ${entry.command}`
          )
        }
      }
    })
  }
})
