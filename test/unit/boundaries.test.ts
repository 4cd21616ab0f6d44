/**
 * The boundary check's own rules (scripts/boundaries.ts), on inline sources: what it must find,
 * and what it must not mistake for a violation (comments, strings, types, literalized values).
 */
import { assert, describe, it } from "vitest"
import { blank, violations } from "../../scripts/boundaries.ts"

const rules = (source: string, path = "src/tools/inspect/x.ts") => violations(path, source).map((found) => found.rule)

describe("boundary check", () => {
  it("blanks comments and string text but keeps positions and substitution code", () => {
    const source = "const a = `x${b}y` // Effect.provide\nconst c = \"provide\" /* Layer.x */"
    const blanked = blank(source, true)
    assert.strictEqual(blanked.length, source.length)
    assert.include(blanked, "${b}")
    assert.notInclude(blanked, "provide")
    assert.notInclude(blanked, "Layer")
  })

  it("ignores escapes named only in comments and strings, and tuple types that name a command", () => {
    assert.deepStrictEqual(rules("// Effect.serviceOption(TmuxDelete)\nconst d = \"Effect.provide(layer)\""), [])
    assert.deepStrictEqual(rules("type T = readonly [\"display-message\" | \"capture-pane\", ...Array<string>]"), [])
  })

  it("finds every escape from the row's services", () => {
    assert.deepStrictEqual(rules("Effect.serviceOption(TmuxDelete)"), ["service-escape"])
    assert.deepStrictEqual(rules("x.pipe(Effect.provideService(TmuxDelete, d))"), ["service-escape"])
    assert.deepStrictEqual(rules("import { provide } from \"effect/Effect\""), ["service-escape"])
    assert.deepStrictEqual(rules("const l = Layer.empty"), ["service-escape"])
    assert.deepStrictEqual(rules("import { x } from \"../../layers/TmuxLive.ts\""), ["layer-import"])
    assert.deepStrictEqual(rules("const m = await import(\"../../platform/TmuxExec.ts\")"), ["raw-runner"])
    assert.deepStrictEqual(rules("import { x } from \"../../wire/McpServer.ts\""), ["layer-import"])
    assert.deepStrictEqual(rules("import { spawn } from \"child_process\""), ["process-import"])
  })

  it("accepts literal formats, helpers imported from their home module, and constants built from them", () => {
    const source = [
      "import { formatOf, FS } from \"../../services/TmuxReads.ts\"",
      "const fixed = `#{pane_id}${FS}#{pane_pid}`",
      "run([[\"list-panes\", \"-F\", fixed], [\"list-sessions\", \"-F\", " +
      "formatOf(fields)], [\"display-message\", \"-p\", \"-t\", id, '#{pane_id}']])"
    ].join("\n")
    assert.deepStrictEqual(rules(source), [])
  })

  it("refuses a helper not imported from its home module, and a caller's text in any format position", () => {
    assert.deepStrictEqual(
      rules("import { formatOf } from \"./mine.ts\"\nrun([[\"list-panes\", \"-F\", formatOf(f)]])"),
      ["caller-built-format"]
    )
    assert.deepStrictEqual(rules("run([[\"select-pane\", \"-t\", id, \"-T\", input.title]])"), ["caller-built-format"])
    assert.deepStrictEqual(rules("run([[\"new-window\", \"-n\", `w-${input.name}`]])"), ["caller-built-format"])
    assert.deepStrictEqual(rules("run([[\"display-message\", \"-p\", \"-t\", id, ...formats]])"), [
      "caller-built-format"
    ])
  })

  it("reads -s as a format only where the file issues new-session (elsewhere it names a source target)", () => {
    assert.deepStrictEqual(rules("run([[\"swap-pane\", \"-s\", input.source, \"-t\", input.target]])"), [])
    assert.deepStrictEqual(rules("run([[\"new-session\", \"-d\", \"-s\", input.name]])"), ["caller-built-format"])
  })
})
