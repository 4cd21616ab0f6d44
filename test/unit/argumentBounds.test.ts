/**
 * The argument bounds: every tool's input schema fits them (the largest valid arguments of each,
 * worked out from its advertised schema, the batch's operations holding the largest other tool's),
 * so the bounds refuse no valid call; and the check stops at the first bound broken.
 */
import { assert, describe, it } from "vitest"
import { argumentBounds, brokenBound, UnreadArguments } from "../../src/domain/argumentBounds.ts"
import { advertisedSchemas } from "../../src/generated/toolSchemas.ts"
import { manifest, toolNames } from "../../src/manifest/index.ts"

interface JsonSchema {
  readonly type?: string
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly additionalProperties?: unknown
  readonly items?: JsonSchema
  readonly maxItems?: number
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly oneOf?: ReadonlyArray<JsonSchema>
  readonly $ref?: string
  readonly $defs?: Readonly<Record<string, JsonSchema>>
}

/** The largest valid value of a schema: its properties and items at any depth, its nesting, its longest array. */
interface Extent {
  readonly values: number
  readonly depth: number
  readonly items: number
}

const scalar: Extent = { values: 0, depth: 0, items: 0 }
const widest = (extents: ReadonlyArray<Extent>): Extent => ({
  values: Math.max(0, ...extents.map((extent) => extent.values)),
  depth: Math.max(0, ...extents.map((extent) => extent.depth)),
  items: Math.max(0, ...extents.map((extent) => extent.items))
})

const extentOf = (
  schema: JsonSchema,
  defs: JsonSchema["$defs"],
  openObject: (path: string) => Extent,
  path = ""
): Extent => {
  if (schema.$ref !== undefined) return extentOf(defs![schema.$ref.split("/").pop()!]!, defs, openObject, path)
  const alternatives = schema.anyOf ?? schema.oneOf
  if (alternatives !== undefined) return widest(alternatives.map((item) => extentOf(item, defs, openObject, path)))
  if (schema.type === "array") {
    const item = extentOf(schema.items ?? {}, defs, openObject, `${path}[]`)
    const count = schema.maxItems ?? Number.POSITIVE_INFINITY
    return { values: count * (1 + item.values), depth: 1 + item.depth, items: Math.max(count, item.items) }
  }
  if (schema.type === "object") {
    if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) {
      return { values: Number.POSITIVE_INFINITY, depth: Number.POSITIVE_INFINITY, items: 0 }
    }
    const properties = Object.entries(schema.properties ?? {})
    if (properties.length === 0 && path !== "") return openObject(path)
    const inner = properties.map(([key, item]) => extentOf(item, defs, openObject, `${path}.${key}`))
    return {
      values: inner.reduce((sum, extent) => sum + 1 + extent.values, 0),
      depth: 1 + widest(inner).depth,
      items: widest(inner).items
    }
  }
  return scalar
}

const inputOf = (name: string) => advertisedSchemas[name]!.inputSchema as JsonSchema
const closed = (path: string): Extent => {
  throw new Error(`an open object at ${path}: give it properties, or a bound`)
}
// What a batch can call: the eligible reads, and show_environment when named.
const others = toolNames.filter((name) => manifest[name].batchEligible || name === "show_environment")
const largestOther = widest(others.map((name) => extentOf(inputOf(name), inputOf(name).$defs, closed)))

describe("argument bounds", () => {
  it("hold every tool's largest valid arguments", () => {
    for (const name of toolNames) {
      const schema = inputOf(name)
      // A batch operation's arguments are another read tool's: the largest of them stands for them.
      const extent = extentOf(
        schema,
        schema.$defs,
        (path) => path === ".operations[].arguments" ? largestOther : closed(path)
      )
      assert.isAtMost(extent.values, argumentBounds.values, `${name}: ${JSON.stringify(extent)}`)
      assert.isAtMost(extent.depth, argumentBounds.depth, `${name}: ${JSON.stringify(extent)}`)
      assert.isAtMost(extent.items, argumentBounds.items, `${name}: ${JSON.stringify(extent)}`)
    }
  })

  it("refuses one value, one level or one item over the limits, and names which", () => {
    const flat = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, 1]))
    const nested = (levels: number): unknown => {
      let value: unknown = {}
      for (let level = 1; level < levels; level++) value = { a: value }
      return value
    }
    assert.isUndefined(brokenBound(flat(argumentBounds.values)))
    assert.strictEqual(brokenBound(flat(argumentBounds.values + 1)), "values")
    assert.isUndefined(brokenBound(nested(argumentBounds.depth)))
    assert.strictEqual(brokenBound(nested(argumentBounds.depth + 1)), "depth")
    assert.strictEqual(brokenBound(nested(10_000)), "depth")
    assert.isUndefined(brokenBound({ a: Array.from({ length: argumentBounds.items }, () => 0) }))
    assert.strictEqual(brokenBound({ a: Array.from({ length: argumentBounds.items + 1 }, () => 0) }), "items")
    // A sparse array of a billion items is refused at its 33rd.
    const sparse: Array<unknown> = []
    sparse.length = 1e9
    assert.strictEqual(brokenBound({ a: sparse }), "items")
    assert.strictEqual(brokenBound(new UnreadArguments("depth")), "depth")
    assert.isUndefined(brokenBound(undefined))
    assert.isUndefined(brokenBound("text"))
  })

  it("stops at the first bound broken: a cycle or a huge object costs no more than the limits", () => {
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    assert.strictEqual(brokenBound(cycle), "depth")
    // 100,000 operations of which only the first few may be looked at: reading further throws.
    const operations = new Proxy(Array.from({ length: 100_000 }, () => ({ tool: "list_sessions", arguments: {} })), {
      get: (target, key, receiver) => {
        if (typeof key === "string" && /^[0-9]+$/u.test(key) && Number(key) >= 64) {
          throw new Error(`read operation ${key}, past the bounds`)
        }
        return Reflect.get(target, key, receiver)
      }
    })
    assert.strictEqual(brokenBound({ operations }), "items")
  })
})
