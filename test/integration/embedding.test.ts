/**
 * An Effect agent host using the tools in process: same selection, same decoding, same typed
 * errors as over MCP, against a real tmux on an isolated socket.
 */
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterEach, assert, describe, it } from "vitest"
import { Audit, callTool, layer } from "../../src/index.ts"
import { makeWorld, type TmuxWorld } from "../support/tmux.ts"
import { recordingTracer } from "../support/tracer.ts"

let world: TmuxWorld
afterEach(() => world.dispose())

const hostEnv = (extra: Record<string, string>) => ({
  PATH: process.env.PATH,
  HOME: world.dir,
  TMUX_TMPDIR: world.dir,
  ...extra
})

describe("in-process tools", () => {
  it("takes its configuration from an Effect ConfigProvider, and a host's own Audit sink", async () => {
    world = makeWorld("embed")
    const records: Array<string> = []
    const sink = Layer.succeed(
      Audit,
      Audit.of({
        intent: (record) => Effect.sync(() => (records.push(`intent ${record.tool}`), records.length)),
        outcome: (record) => Effect.sync(() => void records.push(`outcome ${record.tool}`)),
        rejection: (record) => Effect.sync(() => void records.push(`rejected ${record.tool}`)),
        status: Effect.succeed({ destination: "stderr", path: null, fallback_path: null, moved: null })
      })
    )
    const provider = ConfigProvider.fromUnknown({ ...hostEnv({ LIBTMUX_TOOLSETS: "inspect" }) })
    const program = Effect.gen(function*() {
      const sessions = yield* callTool("list_sessions", {})
      const refused = yield* Effect.flip(callTool("create_session", { session_name: "nope" }))
      return { sessions, refused }
    })
    const result = await Effect.runPromise(
      program.pipe(Effect.provide(layer({ configProvider: provider, services: { audit: sink } })))
    )
    assert.deepStrictEqual(result.sessions.sessions, [])
    assert.strictEqual(result.refused._tag, "ToolNotSelected", "the selection came from the provider")
    assert.deepStrictEqual(records, ["intent list_sessions", "outcome list_sessions", "rejected create_session"])
  })

  it("reads settings from a host's ConfigProvider: a bad one names the valid set, a flag beats it", async () => {
    world = makeWorld("embed")
    const provider = ConfigProvider.fromUnknown({ ...hostEnv({ LIBTMUX_LEASE: "sometimes" }) })
    const refused = await Effect.runPromise(
      Effect.flip(callTool("list_sessions", {}).pipe(Effect.provide(layer({ configProvider: provider }))))
    )
    assert.strictEqual(refused._tag, "StartupError")
    assert.include(refused.message, "LIBTMUX_LEASE \"sometimes\" is not valid; use shared or exclusive")
    const flagged = await Effect.runPromise(
      callTool("list_sessions", {}).pipe(
        Effect.provide(layer({ configProvider: provider, argv: ["--lease", "exclusive"] }))
      )
    )
    assert.deepStrictEqual(flagged.sessions, [])
  })

  it("create and read tmux objects with typed results, no MCP hop", async () => {
    world = makeWorld("embed")
    const program = Effect.gen(function*() {
      const created = yield* callTool("create_session", { session_name: "host" })
      const panes = yield* callTool("list_panes", { session_id: created.session_id })
      return { created, panes: panes.panes }
    })
    const result = await Effect.runPromise(
      program.pipe(Effect.provide(layer({ env: hostEnv({ LIBTMUX_TOOLSETS: "inspect,execute" }) })))
    )
    assert.strictEqual(result.created.session_name, "host")
    assert.deepStrictEqual(result.panes.map((pane) => pane.pane_id), [result.created.pane_id])
    assert.strictEqual(world.tmux("libtmux-mcp", "list-sessions", "-F", "#{session_name}").trim(), "host")
  })

  it("traces a run_shell_command as Registry.call > readiness, the typing list, the wait > the read-back", async () => {
    world = makeWorld("embed")
    const { spans, tracer } = recordingTracer()
    const program = Effect.gen(function*() {
      const created = yield* callTool("create_session", { session_name: "traced" })
      spans.length = 0
      return yield* callTool("run_shell_command", { pane_id: created.pane_id, command: "echo traced", timeout: 20 })
    })
    const result = await Effect.runPromise(
      program.pipe(
        // A shell that reads no startup files of the account's.
        Effect.provide(
          layer({ env: hostEnv({ LIBTMUX_TOOLSETS: "inspect,execute", SHELL: "/bin/sh", HOME: world.dir }) })
        ),
        Effect.provideService(Tracer.Tracer, tracer)
      )
    )
    assert.strictEqual(result.exit_status, 0)
    const call = spans.find((span) => span.name === "Registry.call")!
    assert.strictEqual(call.attributes.get("tool"), "run_shell_command")
    const parentOf = (span: Tracer.NativeSpan) => {
      const parent = Option.getOrUndefined(span.parent)
      return parent === undefined ? undefined : spans.find((candidate) => candidate.spanId === parent.spanId)
    }
    /** The span's ancestors up to the call, nearest first. */
    const path = (span: Tracer.NativeSpan): Array<string> => {
      const parent = parentOf(span)
      return parent === undefined || span === call ? [] : [parent.name, ...path(parent)]
    }
    const named = (name: string) => spans.filter((span) => span.name === name)
    const [readiness] = named("Run.readiness")
    const [wait] = named("Run.wait")
    assert.isDefined(readiness)
    assert.isDefined(wait)
    assert.match(String(wait!.attributes.get("run_id")), /^[0-9a-f]{6}$/u)
    assert.include(path(readiness!), "Registry.call")
    assert.include(path(wait!), "Registry.call")
    // The typing list (the paste, then the waiter's wait and read) is one tmux invocation under the call.
    const typing = spans.find((span) =>
      span.name === "PaneCommand.run" && String(span.attributes.get("commands")).includes("paste-buffer")
    )
    assert.isDefined(typing)
    assert.include(path(typing!), "Registry.call")
    // The read-back is the wait's.
    assert.isTrue(named("Run.readBack").some((span) => path(span).includes("Run.wait")))
    // In that order: ready, typed, waited.
    assert.isTrue(readiness!.status.startTime <= typing!.status.startTime)
    assert.isTrue(typing!.status.startTime <= wait!.status.startTime + 1_000_000_000n)
  })

  it("applies the same selection: a tool outside it fails with ToolNotSelected and acts on nothing", async () => {
    world = makeWorld("embed")
    world.tmux("libtmux-mcp", "new-session", "-d", "-s", "keep")
    const error = await Effect.runPromise(
      Effect.flip(callTool("kill_session", { session_name: "keep" })).pipe(
        Effect.provide(layer({ env: hostEnv({ LIBTMUX_TOOLSETS: "inspect" }) }))
      )
    )
    assert.strictEqual(error._tag, "ToolNotSelected")
    assert.strictEqual(world.tmux("libtmux-mcp", "list-sessions", "-F", "#{session_name}").trim(), "keep")
  })

  it("decodes input strictly and fails with typed errors", async () => {
    world = makeWorld("embed")
    const run = <A, E>(effect: Effect.Effect<A, E, never>) => Effect.runPromise(Effect.flip(effect))
    const env = { env: hostEnv({ LIBTMUX_TOOLSETS: "inspect" }) }
    const invalid = await run(callTool("get_pane_info", { pane_id: "three" }).pipe(Effect.provide(layer(env))))
    assert.strictEqual(invalid._tag, "InputInvalid")
    // An objection of the program itself, not of the schema: the registry names the tool.
    const objected = await run(
      callTool("list_panes", { window_id: "@1", session_name: "a" }).pipe(Effect.provide(layer(env)))
    )
    assert.deepInclude(objected, { _tag: "InputInvalid", tool: "list_panes" })
    assert.strictEqual(objected.message, "invalid arguments for list_panes: give window_id or a session, not both")
    const missing = await run(callTool("get_pane_info", { pane_id: "%99" }).pipe(Effect.provide(layer(env))))
    assert.strictEqual(missing._tag, "PaneNotFound")
  })

  it("stops with a StartupError naming the valid set for a bad configuration", async () => {
    world = makeWorld("embed")
    const error = await Effect.runPromise(
      Effect.flip(
        callTool("list_sessions", {}).pipe(Effect.provide(layer({ env: hostEnv({ LIBTMUX_TOOLSETS: "everything" }) })))
      )
    )
    assert.strictEqual(error._tag, "StartupError")
    assert.include(error.message, "valid toolsets")
  })

  it("tells the kinds of startup failure apart by the reason's tag, each with its own fields", async () => {
    world = makeWorld("embed")
    const reasonOf = (extra: Record<string, string>) =>
      Effect.runPromise(Effect.flip(callTool("list_sessions", {}).pipe(Effect.provide(layer({ env: hostEnv(extra) })))))
    const file = join(world.dir, "precious")
    writeFileSync(file, "keep")
    const setting = await reasonOf({ LIBTMUX_TOOLSETS: "everything" })
    assert.strictEqual(setting._tag, "StartupError")
    if (setting._tag !== "StartupError") return
    assert.deepInclude(setting.reason, { _tag: "SettingInvalid", setting: "LIBTMUX_TOOLSETS" })
    const kinds = [
      [{ LIBTMUX_TMUX_BIN: "/bin/true" }, "TmuxUnusable"],
      [{ LIBTMUX_SOCKET: `path:${file}` }, "SocketPathUnsafe"],
      [{ LIBTMUX_AUDIT_LOG: join(world.dir, "missing", "audit.jsonl") }, "AuditLogUnusable"]
    ] as const
    for (const [extra, tag] of kinds) {
      const error = await reasonOf(extra)
      assert.strictEqual(error._tag === "StartupError" ? error.reason._tag : error._tag, tag)
    }
    world.tmux("libtmux-mcp", "new-session", "-d")
    const adoption = await reasonOf({ LIBTMUX_ADOPT: "refuse" })
    assert.strictEqual(adoption._tag === "StartupError" ? adoption.reason._tag : adoption._tag, "AdoptionRefused")
    assert.include(adoption.message, "LIBTMUX_ADOPT=refuse stops here")
  })

  it("holds the lease as long as the layer: built, closed and built again, it is the holder each time", async () => {
    world = makeWorld("lease")
    const exclusive = layer({ env: hostEnv({ LIBTMUX_TOOLSETS: "inspect", LIBTMUX_LEASE: "exclusive" }) })
    const listed = callTool("list_sessions", {}).pipe(Effect.map((result) => result.sessions.length))
    assert.strictEqual(await Effect.runPromise(listed.pipe(Effect.provide(exclusive))), 0)
    // The first build's scope is closed: the second takes the lease afresh (no LeaseHeld against itself).
    assert.strictEqual(await Effect.runPromise(listed.pipe(Effect.provide(exclusive))), 0)
    // While one build holds it, another is refused, naming the holder.
    const refusal = await Effect.runPromise(
      Effect.scoped(Effect.gen(function*() {
        yield* Layer.build(exclusive)
        return yield* Effect.flip(Layer.build(exclusive))
      }))
    )
    assert.strictEqual(refusal._tag, "StartupError")
    assert.include(refusal.message, "lease")
  })
})
