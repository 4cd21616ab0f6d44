/**
 * The streaming shape scan of a line agrees with the bounds check of the parsed arguments on
 * random messages cut into random chunks (the same bound named, or none), keeps the id, method and
 * tool wherever they stand in the line, and holds the whole line to its own bounds.
 */
import { assert, describe, it } from "vitest"
import { argumentBounds, brokenBound } from "../../src/domain/argumentBounds.ts"
import { lineBounds, LineShape } from "../../src/wire/LineShape.ts"

/** A small seeded generator (mulberry32): the same cases on every run. */
const random = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const texts = ["", "a", "p\"q", "back\\slash", "\\\"", "é ü 𝄞", "[{,:}]", "\u0000\n\t", "arguments", "params"]

const leaf = (next: () => number): unknown => {
  const pick = next()
  return pick < 0.5
    ? texts[Math.floor(next() * texts.length)]
    : pick < 0.8
    ? Math.floor(next() * 1e6)
    : pick < 0.9
    ? null
    : true
}

/** Random JSON: small containers, now and then a wide one, to `depth` levels at most. */
const value = (next: () => number, depth: number, width: number): unknown => {
  const roll = next()
  if (depth <= 1 || roll < 0.3) return leaf(next)
  const size = Math.floor(next() * (next() < 0.1 ? width : 4))
  if (roll < 0.65) return Array.from({ length: size }, () => value(next, depth - 1, width))
  return Object.fromEntries(
    Array.from(
      { length: size },
      (_, index) => [`${texts[index % texts.length]}${index}`, value(next, depth - 1, width)]
    )
  )
}

/** Arguments near one of the bounds: many members, a deep chain or a long array, with random values inside. */
const argumentsNearABound = (next: () => number): unknown => {
  const family = next()
  if (family < 0.33) {
    // Around the values bound: groups of members, each holding small random values.
    const groups = 20 + Math.floor(next() * 30)
    return Object.fromEntries(Array.from({ length: groups }, (_, group) => [
      `g${group}`,
      Object.fromEntries(Array.from({ length: 20 + Math.floor(next() * 20) }, (_, index) => [`k${index}`, leaf(next)]))
    ]))
  }
  if (family < 0.66) {
    // Around the depth bound.
    let chain = value(next, 2, 4)
    for (let level = 4 + Math.floor(next() * 8); level > 0; level--) {
      chain = next() < 0.5
        ? [chain, leaf(next)]
        : { a: chain }
    }
    return { chain }
  }
  // Around the items bound, at some depth.
  let list: unknown = Array.from({ length: 26 + Math.floor(next() * 12) }, () => value(next, 2, 4))
  for (let level = Math.floor(next() * 4); level > 0; level--) list = { list }
  return { list, other: value(next, 4, 40) }
}

const feedInChunks = (line: string, next: () => number): LineShape => {
  const bytes = Buffer.from(line, "utf8")
  const shape = new LineShape()
  for (let start = 0; start < bytes.length;) {
    const end = Math.min(bytes.length, start + 1 + Math.floor(next() * 300))
    shape.feed(bytes.subarray(start, end))
    start = end
  }
  return shape
}

describe("LineShape", () => {
  it("names the bound the parsed arguments break, or none, and keeps id, method and tool (3,000 random calls)", () => {
    const next = random(33)
    const seen = { values: 0, depth: 0, items: 0, none: 0 }
    for (let round = 0; round < 3000; round++) {
      const args = argumentsNearABound(next)
      const id = next() < 0.5 ? Math.floor(next() * 1e9) : `id-"${round}"`
      const tool = next() < 0.9 ? "list_panes" : "na\"me"
      // Members in any order, as other clients write them.
      const members: Array<[string, unknown]> = [
        ["jsonrpc", "2.0"],
        ["id", id],
        ["method", "tools/call"],
        ["params", next() < 0.5 ? { name: tool, arguments: args } : { arguments: args, name: tool, _meta: { x: [1] } }]
      ]
      members.sort(() => next() - 0.5)
      const line = JSON.stringify(Object.fromEntries(members), null, next() < 0.2 ? 1 : undefined)
      const shape = feedInChunks(line, next)
      const expected = brokenBound(args)
      seen[expected ?? "none"]++
      assert.strictEqual(shape.argumentsBroken, expected, line.slice(0, 300))
      if (expected === undefined) assert.isUndefined(shape.lineBroken, line.slice(0, 300))
      assert.strictEqual(shape.id, id)
      assert.strictEqual(shape.method, "tools/call")
      assert.strictEqual(shape.tool, tool)
      assert.isTrue(shape.complete)
    }
    // Every kind of case was drawn.
    for (const [kind, count] of Object.entries(seen)) assert.isAbove(count, 100, `${kind}: ${JSON.stringify(seen)}`)
  })

  it("holds the whole line to its own bounds, and counts nothing outside params.arguments against theirs", () => {
    const next = random(7)
    const wide = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { capabilities: { list: Array(lineBounds.values).fill(0) } }
    }
    const shape = feedInChunks(JSON.stringify(wide), next)
    assert.strictEqual(shape.lineBroken, "values")
    assert.isUndefined(shape.argumentsBroken)
    assert.strictEqual(shape.id, 1)
    let deep: unknown = 0
    for (let level = 0; level < lineBounds.depth; level++) deep = [deep]
    const nested = feedInChunks(
      JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping", params: { _meta: { deep } } }),
      next
    )
    assert.strictEqual(nested.lineBroken, "depth")
    const fits = feedInChunks(
      JSON.stringify({ id: 3, params: { _meta: Array(argumentBounds.values * 2).fill(0) } }),
      next
    )
    assert.isFalse(fits.broken)
    // A key is read as JSON reads it: an escaped "arguments" is the arguments.
    const escaped = `{"id":4,"method":"tools/call","params":{"name":"x","\\u0061rguments":{"a":${
      JSON.stringify(Array(33).fill(0))
    }}}}`
    const shapeOfEscaped = feedInChunks(escaped, next)
    assert.strictEqual(shapeOfEscaped.argumentsBroken, "items")
  })

  it("says a line that ends inside a string or a container is not complete", () => {
    for (const line of ["{\"id\":1,\"a\":\"open", "{\"id\":1,\"a\":[1,2", "{\"id\":1}}"]) {
      const shape = new LineShape()
      shape.feed(Buffer.from(line))
      assert.isFalse(shape.complete, line)
    }
  })
})
