/**
 * The tail bound on returned text (domain/bounds.ts): for any lines and bounds, what is kept is the
 * end of the text, fits the line, byte and JSON-character bounds, and the counts of what was
 * dropped add up; text full of control characters (six characters each in JSON) is cut to fit.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { tailBound } from "../../src/domain/bounds.ts"

const bytes = (text: string) => Buffer.byteLength(text, "utf8")
const jsonChars = (text: string) => JSON.stringify(text).length - 2

// Pieces that escape differently: plain, CJK, an emoji (a surrogate pair), quotes, control characters.
const Piece = Schema.Literals(["a", "word ", "漢字", "😀", "\"", "\\", "\t", "\u0001", "\u001b[0m", ""])
const Line = Schema.Array(Piece).check(Schema.isMaxLength(40))
const Input = Schema.Struct({
  lines: Schema.Array(Line).check(Schema.isMaxLength(30)),
  maxLines: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 40 })),
  maxBytes: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 2_000 })),
  maxChars: Schema.Int.check(Schema.isBetween({ minimum: 12, maximum: 3_000 }))
})

describe("tailBound", () => {
  it.effect.prop(
    "keeps the end of the text within every bound, and counts what it dropped",
    [Input],
    ([input]) =>
      Effect.sync(() => {
        const lines = input.lines.map((pieces) => pieces.join(""))
        const bounded = tailBound(lines, input.maxLines, input.maxBytes, input.maxChars)
        const text = lines.join("\n")
        const kept = bounded.lines.join("\n")
        assert.isTrue(text.endsWith(kept), JSON.stringify({ text, kept }))
        assert.isAtMost(bounded.lines.length, input.maxLines)
        assert.isAtMost(bytes(kept), input.maxBytes)
        assert.isAtMost(jsonChars(kept), input.maxChars)
        assert.strictEqual(bounded.truncatedLines, Math.max(0, lines.length - bounded.lines.length))
        if (lines.length > 0) assert.strictEqual(bounded.truncatedBytes, bytes(text) - bytes(kept))
        // Cut between characters: no lone surrogate is left at the start.
        assert.isFalse(/^[\udc00-\udfff]/u.test(kept))
      }),
    { arbitrary: { runs: 300 } }
  )

  it("cuts 400,000 bytes of control characters to what fits 480,000 characters of JSON", () => {
    const line = "\u0001".repeat(400_000)
    const bounded = tailBound([line], 1_000, 4 * 1024 * 1024)
    const kept = bounded.lines.join("\n")
    assert.strictEqual(jsonChars(kept), 480_000)
    assert.strictEqual(bounded.truncatedBytes, 400_000 - 80_000)
  })

  it("leaves text that fits untouched", () => {
    const lines = ["one", "two 漢字", "three 😀"]
    assert.deepStrictEqual(tailBound(lines, 10, 1_000), { lines, truncatedLines: 0, truncatedBytes: 0 })
  })
})
