/**
 * Bad input, drawn from each tool's own input schema: a valid call (a value of the decoded type,
 * encoded, its IDs pointed at the fake's objects) succeeds or fails with a typed tool error; the
 * same call mutated (a required property dropped, a wrong type, a number out of range, a string
 * too long, an unknown property) is refused as invalid input naming that property, before any
 * tmux command; and the server answers the valid call the same way afterwards.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Arbitrary from "effect/Arbitrary"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import * as RegistryLayer from "../../src/dispatch/Registry.ts"
import { boundProblem, brokenBound } from "../../src/domain/argumentBounds.ts"
import { advertisedSchemas } from "../../src/generated/toolSchemas.ts"
import { definitionOf, registeredNames } from "../../src/tools/index.ts"
import { makeFake } from "../support/fakeTmux.ts"
import { checkProperty } from "../support/property.ts"

interface PropertySchema {
  readonly type?: string
  readonly minimum?: number
  readonly maximum?: number
  readonly exclusiveMinimum?: number
  readonly maxLength?: number
}
interface InputSchema {
  readonly properties?: Readonly<Record<string, PropertySchema>>
  readonly required?: ReadonlyArray<string>
}

const Mutation = Schema.Struct({
  kind: Schema.Literals(["drop required", "wrong type", "out of range", "too long", "unknown property"]),
  pick: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 1_000 }))
})
type Mutation = typeof Mutation.Type

/** IDs drawn from the schema, pointed at the fake's session $0, window @0 and panes %0 and %1; timeouts short. */
const intoTheWorld = (value: unknown): unknown => {
  if (typeof value === "string") {
    if (/^%\d+$/u.test(value)) return `%${Number(value.slice(1)) % 2}`
    if (/^@\d+$/u.test(value)) return "@0"
    if (/^\$\d+$/u.test(value)) return "$0"
    return value
  }
  if (Array.isArray(value)) return value.map(intoTheWorld)
  if (value !== null && typeof value === "object") {
    // Waits poll the fake every 20 virtual ms: a short timeout keeps the run count affordable.
    return Object.fromEntries(
      Object.entries(value).map((
        [key, item]
      ) => [key, key === "timeout" && typeof item === "number" ? Math.min(item, 0.5) : intoTheWorld(item)])
    )
  }
  return value
}

const wrongTypeFor = (schema: PropertySchema): unknown =>
  schema.type === "string"
    ? 7
    : schema.type === "object"
    ? "text"
    : schema.type === "array"
    ? { not: "a list" }
    : schema.type === "boolean"
    ? "true"
    : "7"

/** The mutated call and the property it breaks; a mutation that does not apply falls back to an unknown property. */
const mutate = (
  input: Record<string, unknown>,
  schema: InputSchema,
  { kind, pick }: Mutation
): { args: Record<string, unknown>; property: string } => {
  const properties = Object.entries(schema.properties ?? {})
  const choose = <A>(from: ReadonlyArray<A>) => from[pick % from.length]
  const required = (schema.required ?? []).filter((name) => name in input)
  const numeric = properties.filter(([, p]) =>
    p.maximum !== undefined || p.minimum !== undefined || p.exclusiveMinimum !== undefined
  )
  const bounded = properties.filter(([, p]) => p.type === "string" && p.maxLength !== undefined)
  if (kind === "drop required" && required.length > 0) {
    const property = choose(required)!
    const { [property]: _dropped, ...args } = input
    return { args, property }
  }
  if (kind === "wrong type" && properties.length > 0) {
    const [property, p] = choose(properties)!
    return { args: { ...input, [property]: wrongTypeFor(p) }, property }
  }
  if (kind === "out of range" && numeric.length > 0) {
    const [property, p] = choose(numeric)!
    const value = p.maximum !== undefined ? p.maximum + 1 : p.minimum !== undefined ? p.minimum - 1 : p.exclusiveMinimum
    return { args: { ...input, [property]: value }, property }
  }
  if (kind === "too long" && bounded.length > 0) {
    const [property, p] = choose(bounded)!
    return { args: { ...input, [property]: "a".repeat(p.maxLength! + 1) }, property }
  }
  return { args: { ...input, zz_unknown: pick }, property: "zz_unknown" }
}

/** One server over the fake; waits run on virtual time, so a drawn day-long timeout ends at once. */
const serve = (name: string) =>
  Effect.gen(function*() {
    const fake = makeFake()
    const registry = yield* Effect.provide(
      Effect.gen(function*() {
        return yield* RegistryLayer.Registry
      }),
      RegistryLayer.layer.pipe(Layer.provide(fake.layer))
    )
    const call = (args: unknown) =>
      Effect.gen(function*() {
        const fiber = yield* Effect.forkChild(registry.call(name, args))
        yield* TestClock.adjust("2 days")
        return yield* Fiber.join(fiber)
      })
    return { call, log: fake.log }
  })

type Served = Effect.Success<ReturnType<typeof serve>>
const outcomeOf = (outcome: Effect.Success<ReturnType<Served["call"]>>) =>
  outcome._tag === "Success" ? "Success" : outcome.error._tag

const refusesMutations = (name: string, mutateWith = mutate) => ([value, mutation]: readonly [unknown, Mutation]) =>
  Effect.gen(function*() {
    const definition = definitionOf(name as never)
    const schema = (advertisedSchemas[name]?.inputSchema ?? {}) as InputSchema
    const valid = intoTheWorld(Schema.encodeUnknownSync(definition.input)(value)) as Record<string, unknown>
    const server = yield* serve(name)
    const first = yield* server.call(valid)
    // The batch's schema takes any arguments for its operations, so a draw may nest deeper than any
    // tool takes: refused before decoding, naming the bound, and a mutation has nothing more to show.
    const broken = brokenBound(valid)
    if (broken !== undefined) {
      assert.strictEqual(outcomeOf(first), "InputInvalid")
      return assert.include(first._tag === "Failure" ? first.error.message : "", boundProblem(broken))
    }
    if (first._tag === "Failure") assert.isAbove(first.error.message.length, 0)
    const { args, property } = mutateWith(valid, schema, mutation)
    const before = server.log.length
    const refused = yield* server.call(args)
    assert.strictEqual(outcomeOf(refused), "InputInvalid", `${JSON.stringify(args)} was not refused`)
    const detail = refused._tag === "Failure" ? refused.error.message.split("\nvalid properties")[0]! : ""
    assert.include(detail, `"${property}"`, "the refusal names the property")
    assert.strictEqual(server.log.length, before, "a refused call ran a tmux command")
    assert.strictEqual(
      outcomeOf(yield* server.call(valid)),
      outcomeOf(first),
      "the server answers the same after a refusal"
    )
  })

const drawn = (name: string) =>
  Arbitrary.all([
    Arbitrary.schema(definitionOf(name as never).input as Schema.Codec<unknown>),
    Arbitrary.schema(Mutation)
  ])

describe("bad input", () => {
  for (const name of registeredNames) {
    it.effect.prop(
      `${name}: valid calls drawn from its schema succeed or fail typed; mutated, they are refused naming the property`,
      [drawn(name)],
      ([input]) => refusesMutations(name)(input),
      { arbitrary: { runs: 25 } }
    )
  }

  it.effect("a batch deeper than any tool takes is refused naming the bound (a draw once falsified the property)", () =>
    refusesMutations("call_read_tools_batch")([
      { operations: [{ tool: "", arguments: { a: { b: { c: { d: { e: [] } } } } } }] },
      { kind: "out of range", pick: 844 }
    ]))

  it.effect("the property catches a mutation that leaves the call valid", () =>
    Effect.gen(function*() {
      const unchanged: typeof mutate = (input) => ({ args: input, property: "pane_id" })
      assert.strictEqual(
        yield* checkProperty(drawn("get_pane_info"), refusesMutations("get_pane_info", unchanged), 10),
        "Falsified"
      )
    }))
})
