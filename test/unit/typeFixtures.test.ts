/**
 * The compile-fail fixture checker (scripts/check-type-fixtures.ts) accepts exactly the marked
 * errors: the right code with the named message on the marked line, and nothing else.
 */
import { assert, describe, it } from "vitest"
import { expectedErrors, mismatches, parseDiagnostics } from "../../scripts/check-type-fixtures.ts"

const source = [
  "import x from \"y\"",
  "// expect-error: TS2322 Type '\"-I\"' is not assignable",
  "run([[\"display-message\", \"-I\"]])"
].join("\n")
const expected = expectedErrors(source)
const output = (line: number, code = "TS2322", text = "Type '\"-I\"' is not assignable to type '\"-p\"'.") =>
  `test/types/fail/f.ts(${line},5): error ${code}: Type 'x' is not assignable to type 'y'.\n  ${text}\n`

describe("the type fixture checker", () => {
  it("reads the marker as naming the next line", () => {
    assert.deepStrictEqual(expected, [{ line: 3, code: "TS2322", fragment: "Type '\"-I\"' is not assignable" }])
  })

  it("accepts the marked error, with its elaboration, on the marked line", () => {
    assert.deepStrictEqual(mismatches("f.ts", expected, parseDiagnostics(output(3))), [])
  })

  it("refuses the right message on another line, another code, another message, or one more error", () => {
    assert.lengthOf(mismatches("f.ts", expected, parseDiagnostics(output(1))), 2)
    assert.match(mismatches("f.ts", expected, parseDiagnostics(output(3, "TS2345")))[0]!, /TS2345, expected TS2322/u)
    assert.match(mismatches("f.ts", expected, parseDiagnostics(output(3, "TS2322", "other")))[0]!, /does not say/u)
    assert.match(mismatches("f.ts", expected, parseDiagnostics(output(3) + output(1))).join("\n"), /unexpected error/u)
    assert.match(mismatches("f.ts", expected, parseDiagnostics(output(3) + output(3))).join("\n"), /2 errors/u)
  })
})
