/**
 * The name grammar, and format literalization checked against a model of tmux 3.3a's format
 * expansion (format.c, format_expand1): `##` gives `#`, a run of `#` before `[` is kept, `#(`
 * runs a job, `#{` expands a variable, `#` and a letter may expand an alias.
 */
import { prop } from "@effect/vitest"
import * as Schema from "effect/Schema"
import { assert, describe, it } from "vitest"
import { literalizeFormat, nameProblem } from "../../src/domain/names.ts"

/** What tmux's expansion yields, or "JOB"/"VARIABLE"/"ALIAS" when it would run or expand something. */
const expandModel = (format: string): string => {
  let out = ""
  for (let i = 0; i < format.length;) {
    if (format[i] !== "#") {
      out += format[i++]
      continue
    }
    const ch = format[i + 1]
    if (ch === "(") return "JOB"
    if (ch === "{") return "VARIABLE"
    if (ch === "#") {
      let j = i + 1
      while (format[j] === "#") j++
      if (format[j] === "[") {
        out += format.slice(i, j + 1)
        i = j + 1
        continue
      }
      out += "#"
      i += 2
      continue
    }
    if (ch === "}" || ch === ",") {
      out += ch
      i += 2
      continue
    }
    if (ch !== undefined && /[A-Za-z]/u.test(ch) && "DFHIPSTWhs".includes(ch)) return "ALIAS"
    out += `#${ch ?? ""}`
    i += 2
  }
  return out
}

describe("literalizeFormat", () => {
  it("round-trips examples through tmux's expansion rules", () => {
    for (
      const text of [
        "plain",
        "#(touch x)",
        "#{session_id}",
        "a#",
        "##",
        "#[fg=red]",
        "##[x",
        "#S#W",
        "x#,y#}",
        "#(unclosed",
        "#{"
      ]
    ) {
      assert.strictEqual(expandModel(literalizeFormat(text)), text, text)
    }
  })

  prop("round-trips any text made of format-significant characters", [
    Schema.Array(Schema.Literals(["#", "(", ")", "{", "}", "[", "S", ",", "a", " "]))
  ], ([chars]) => {
    const text = chars.join("")
    assert.strictEqual(expandModel(literalizeFormat(text)), text)
  })

  prop("round-trips arbitrary strings", [Schema.String], ([text]) => {
    assert.strictEqual(expandModel(literalizeFormat(text)), text)
  })
})

describe("nameProblem", () => {
  it("accepts ordinary names, including spaces, unicode, # and ;", () => {
    for (const name of ["work", "my project", "build-1_x", "naïve", "日本", "a#b", "semi;", "x".repeat(128)]) {
      assert.isUndefined(nameProblem(name), name)
    }
  })

  it("rejects empty, over-long, control-character, dotted, coloned, backslashed and ID-like names", () => {
    for (
      const name of ["", "x".repeat(129), "a\nb", "a\u0000b", "a\u001fb", "a.b", "a:b", "a\\b", "\\", "$1", "@2", "%3"]
    ) {
      assert.isString(nameProblem(name), JSON.stringify(name))
    }
  })
})
