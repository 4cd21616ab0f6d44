/**
 * A host calling the tools in process gets the argument bounds too, before decoding: arguments
 * nested 10,000 deep (which once ended in an internal error with no audit record) and 600,000
 * properties are refused as InputInvalid naming the bound, with intent and outcome records that
 * say only which bound broke; an unknown tool's rejection record reads nothing of them either.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterEach, assert, describe, it } from "vitest"
import { Audit, callTool, layer } from "../../src/index.ts"
import { makeWorld, type TmuxWorld } from "../support/tmux.ts"

let world: TmuxWorld
afterEach(() => world.dispose())

describe("argument bounds in process", () => {
  it("refuses arguments over the bounds before decoding, audited with the bound only", async () => {
    world = makeWorld("bounds")
    const records: Array<Record<string, unknown>> = []
    const sink = Layer.succeed(
      Audit,
      Audit.of({
        intent: (record) => Effect.sync(() => (records.push({ event: "intent", ...record }), records.length)),
        outcome: (record) => Effect.sync(() => void records.push({ event: "outcome", ...record })),
        rejection: (record) => Effect.sync(() => void records.push({ event: "rejected", ...record })),
        status: Effect.succeed({ destination: "stderr", path: null, fallback_path: null, moved: null })
      })
    )
    let deep: unknown = "x"
    for (let level = 0; level < 10_000; level++) deep = { a: deep }
    const wide: Record<string, number> = {}
    for (let index = 0; index < 600_000; index++) wide[`p${index}`] = index
    const program = Effect.gen(function*() {
      const nested = yield* Effect.flip(callTool("list_windows", { session_id: deep } as never))
      const many = yield* Effect.flip(callTool("list_sessions", wide as never))
      const unknown = yield* Effect.flip(callTool("no_such_tool" as never, { deep } as never))
      return { nested, many, unknown }
    })
    const env = { PATH: process.env.PATH, HOME: world.dir, TMUX_TMPDIR: world.dir }
    const result = await Effect.runPromise(program.pipe(Effect.provide(layer({ env, services: { audit: sink } }))))
    assert.strictEqual(result.nested._tag, "InputInvalid")
    assert.strictEqual(
      result.nested.message,
      "invalid arguments for list_windows: refused before decoding: the arguments nest deeper than 8 levels " +
        "(the arguments object is level 1); no tool takes deeper"
    )
    assert.strictEqual(result.many._tag, "InputInvalid")
    assert.include(result.many.message, "hold more than 1024 properties and array items")
    assert.strictEqual(result.unknown._tag, "ToolNotSelected")
    assert.deepStrictEqual(
      records.map((record) => [record.event, record.tool, record.arguments ?? record.error_tag]),
      [
        ["intent", "list_windows", { "(over the bounds)": "depth" }],
        ["outcome", "list_windows", "InputInvalid"],
        ["intent", "list_sessions", { "(over the bounds)": "values" }],
        ["outcome", "list_sessions", "InputInvalid"],
        ["rejected", "(unknown)", { "(over the bounds)": "depth" }]
      ]
    )
  })
})
