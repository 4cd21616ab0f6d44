/**
 * The tools as an effect/ai Toolkit, driven as an Effect agent host would: a scripted language model
 * that calls create_session, then run_shell_command on real tmux, then a tool with bad input; the
 * tool results the model loop receives are checked, failures as the tool's typed failure.
 */
import { LanguageModel } from "effect/ai"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { execFileSync } from "node:child_process"
import { afterEach, assert, describe, it } from "vitest"
import { toolkit } from "../../src/index.ts"
import { makeWorld, type TmuxWorld } from "../support/tmux.ts"

let world: TmuxWorld | undefined
afterEach(() => {
  world?.dispose()
  world = undefined
})

/** A model that answers each request with the next scripted tool call, then stops. */
const scriptedModel = (
  calls: Array<(previous: ReadonlyArray<unknown>) => { readonly name: string; readonly params: unknown }>
) => {
  const results: Array<unknown> = []
  let step = 0
  return {
    results,
    layer: Layer.effect(
      LanguageModel.LanguageModel,
      LanguageModel.make({
        generateText: () =>
          Effect.sync(() => {
            const next = calls[step]?.(results)
            step++
            return [
              ...(next === undefined
                ? []
                : [{ type: "tool-call" as const, id: `call-${step}`, name: next.name, params: next.params }]),
              {
                type: "finish" as const,
                reason: "tool-calls" as const,
                usage: { inputTokens: { total: 1 }, outputTokens: { total: 1 } }
              }
            ]
          }),
        streamText: () => Stream.empty
      })
    )
  }
}

describe("toolkit", () => {
  it("fails with the typed StartupError, not a defect, when asked to print instead of configure", async () => {
    const exit = await Effect.runPromiseExit(Effect.scoped(toolkit({ env: {}, argv: ["--help"] })))
    assert.strictEqual(exit._tag, "Failure")
    const failure = exit._tag === "Failure" ? Cause.findErrorOption(exit.cause) : undefined
    assert.strictEqual(failure?._tag, "Some")
    if (failure?._tag === "Some") {
      assert.strictEqual((failure.value as { _tag: string })._tag, "StartupError")
      assert.strictEqual((failure.value as { reason: { _tag: string } }).reason._tag, "SettingInvalid")
    }
  })

  it("gives an Effect agent the selected tools, with results and typed failures from real tmux", async () => {
    world = makeWorld("toolkit")
    const env = {
      PATH: process.env.PATH,
      HOME: world.dir,
      TMUX_TMPDIR: world.dir,
      LIBTMUX_TOOLSETS: "inspect,execute",
      SHELL: "/bin/bash"
    }
    const model = scriptedModel([
      () => ({ name: "create_session", params: { session_name: "agent" } }),
      (previous) => ({
        name: "run_shell_command",
        params: { pane_id: (previous[0] as { pane_id: string }).pane_id, command: "echo from-the-toolkit; exit 4" }
      }),
      () => ({ name: "get_pane_info", params: { pane_id: "%99" } }),
      () => ({ name: "list_sessions", params: { unexpected: true } })
    ])
    const program = Effect.gen(function*() {
      const { toolkit: kit, handlers } = yield* toolkit({ env })
      assert.include(Object.keys(kit.tools), "run_shell_command")
      assert.notInclude(Object.keys(kit.tools), "kill_session", "tools outside the selection are absent")
      const parts: Array<{ readonly isFailure: boolean; readonly result: unknown }> = []
      for (let turn = 0; turn < 3; turn++) {
        const response = yield* LanguageModel.generateText({ prompt: "work in tmux", toolkit: kit }).pipe(
          Effect.provide(handlers)
        )
        for (const part of response.toolResults) {
          parts.push(part)
          model.results.push(part.result)
        }
      }
      // Parameters the schema refuses never reach a handler: the model is told what was wrong.
      const strict = yield* LanguageModel.generateText({ prompt: "work in tmux", toolkit: kit }).pipe(
        Effect.provide(handlers),
        Effect.result
      )
      return { parts, strict }
    }).pipe(Effect.scoped, Effect.provide(model.layer))
    const { parts: [created, ran, refused], strict } = await Effect.runPromise(program)
    assert.isFalse(created!.isFailure)
    assert.match((created!.result as { pane_id: string }).pane_id, /^%\d+$/u)
    assert.isFalse(ran!.isFailure)
    assert.deepInclude(ran!.result as object, { exit_status: 4, output: "from-the-toolkit" })
    assert.isTrue(refused!.isFailure, "a missing pane is the tool's typed failure")
    assert.strictEqual((refused!.result as { _tag?: string })._tag, "PaneNotFound")
    const told = strict._tag === "Failure"
      ? String(strict.failure)
      : JSON.stringify((strict.success as { toolResults: unknown }).toolResults)
    assert.include(told, "unexpected")
  })

  it("runs the example host program, whose model is a scripted LanguageModel (its types reach the host)", () => {
    world = makeWorld("example")
    const env = { PATH: process.env.PATH, HOME: world.dir, TMUX_TMPDIR: world.dir, SHELL: "/bin/bash" }
    const printed = execFileSync(process.execPath, ["examples/scripted-agent.ts"], { env, encoding: "utf8" })
    assert.strictEqual(printed.trim(), `sessions: {"sessions":[]}`)
  })
})
