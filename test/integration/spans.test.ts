/**
 * A host that installs a tracer sees each call: a `Registry.call` span annotated with the tool and
 * the pane it names, and under it a span for each tmux invocation, named by the authority that asked.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import * as RegistryLayer from "../../src/dispatch/Registry.ts"
import { makeFake } from "../support/fakeTmux.ts"
import { recordingTracer } from "../support/tracer.ts"

describe("spans", () => {
  it.effect("a tool call is a Registry.call span with its tmux invocations under it", () =>
    Effect.gen(function*() {
      const { spans, tracer } = recordingTracer()
      const fake = makeFake()
      const registry = yield* Effect.provide(
        Effect.gen(function*() {
          return yield* RegistryLayer.Registry
        }),
        RegistryLayer.layer.pipe(Layer.provide(fake.layer))
      )
      const outcome = yield* registry.call("capture_pane", { pane_id: "%1" }).pipe(
        Effect.provideService(Tracer.Tracer, tracer)
      )
      assert.strictEqual(outcome._tag, "Success")
      const call = spans.find((span) => span.name === "Registry.call")
      assert.isDefined(call)
      assert.strictEqual(call!.attributes.get("tool"), "capture_pane")
      assert.strictEqual(call!.attributes.get("pane_id"), "%1")
      assert.strictEqual(call!.status._tag, "Ended")
      const children = spans.filter((span) => Option.isSome(span.parent) && span.parent.value.spanId === call!.spanId)
      assert.include(children.map((span) => span.name), "TmuxObserve.run")
      const capture = children.find((span) => String(span.attributes.get("commands")).includes("capture-pane"))
      assert.isDefined(capture)
    }))
})
