/**
 * A host that installs a tracer sees each call as a tree: a `Registry.call` span annotated with the
 * tool and the pane it names; under it the program (`Registry.execute`), the service methods it
 * called (`TmuxReads.sessions`, ...) and a span for each tmux invocation, named by the authority
 * that asked; a batch's reads each under a `Registry.nested` of their own.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import * as RegistryLayer from "../../src/dispatch/Registry.ts"
import { makeFake } from "../support/fakeTmux.ts"
import { recordingTracer } from "../support/tracer.ts"

const traced = (tool: string, args: unknown) =>
  Effect.gen(function*() {
    const { spans, tracer } = recordingTracer()
    const registry = yield* Effect.provide(
      Effect.gen(function*() {
        return yield* RegistryLayer.Registry
      }),
      RegistryLayer.layer.pipe(Layer.provide(makeFake().layer))
    )
    const outcome = yield* registry.call(tool, args).pipe(Effect.provideService(Tracer.Tracer, tracer))
    assert.strictEqual(outcome._tag, "Success")
    const byId = new Map(spans.map((span) => [span.spanId, span]))
    /** A span's name with its ancestors', outermost first. */
    const path = (span: Tracer.Span): string =>
      Option.isSome(span.parent) && byId.has(span.parent.value.spanId)
        ? `${path(byId.get(span.parent.value.spanId)!)} > ${span.name}`
        : span.name
    return { spans, paths: spans.map(path) }
  })

describe("spans", () => {
  it.effect("a tool call is a Registry.call span, its program under it, its tmux invocations under that", () =>
    Effect.gen(function*() {
      const { paths, spans } = yield* traced("capture_pane", { pane_id: "%1" })
      const call = spans.find((span) => span.name === "Registry.call")!
      assert.strictEqual(call.attributes.get("tool"), "capture_pane")
      assert.strictEqual(call.attributes.get("pane_id"), "%1")
      assert.strictEqual(call.status._tag, "Ended")
      assert.include(paths, "Registry.call > Registry.execute > TmuxObserve.run")
      const capture = spans.find((span) => String(span.attributes.get("commands")).includes("capture-pane"))
      assert.isDefined(capture)
    }))

  it.effect("a service method is a span between the program and its invocation", () =>
    Effect.gen(function*() {
      const { paths } = yield* traced("list_sessions", {})
      assert.include(paths, "Registry.call > Registry.execute > TmuxReads.sessions > TmuxObserve.run")
    }))

  it.effect("a batch's read is a Registry.nested span with its own program under it", () =>
    Effect.gen(function*() {
      const { paths } = yield* traced("call_read_tools_batch", { operations: [{ tool: "list_sessions" }] })
      assert.include(
        paths,
        "Registry.call > Registry.execute > Registry.nested > Registry.execute > TmuxReads.sessions > TmuxObserve.run"
      )
    }))
})
