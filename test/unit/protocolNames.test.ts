/**
 * The table of protocol names (src/domain/protocolNames.ts): every name the protocol's commands use
 * is one the grammar admits, its matchers read back what it writes and nothing else, and the check
 * in `npm run check` (scripts/protocolSpellings.ts) finds a name spelled anywhere else in src/.
 */
import { readFileSync } from "node:fs"
import { assert, describe, it } from "vitest"
import { spellingsIn } from "../../scripts/protocolSpellings.ts"
import { formatTag } from "../../src/domain/instance.ts"
import {
  bufferTag,
  channelPrefix,
  controlSessionName,
  controlSessionTag,
  generationOfOption,
  isGuardMark,
  marks,
  paneRunOptions,
  pasteBufferName,
  pasteBufferPattern,
  protocolNames,
  protocolOptionPattern,
  runIdPattern,
  runOfChannel,
  runOfOption
} from "../../src/domain/protocolNames.ts"

const runId = "a1b2c3"
const tag = formatTag({ pid: 100, started: 5000, namespace: "4026531836" })

describe("protocol names", () => {
  it("admits in set-option every option the protocol names, and no other", () => {
    const names = protocolNames(runId)
    const options = [
      paneRunOptions.claim,
      paneRunOptions.last,
      paneRunOptions.generation,
      paneRunOptions.openInput,
      paneRunOptions.collected,
      paneRunOptions.shellFlags,
      paneRunOptions.viewOk,
      paneRunOptions.none,
      paneRunOptions.typedAt(0),
      paneRunOptions.typedAt(999_999_999_999_999 + 1),
      paneRunOptions.record(runId),
      paneRunOptions.successor(runId),
      names.template,
      names.markTemplate,
      names.end,
      names.typed,
      names.start
    ]
    for (const option of options) assert.match(option, protocolOptionPattern)
    const others = [
      "@x",
      "@lmcp_other",
      "@lmcp_run_",
      "@lmcp_run_a1b2c3d",
      "@la1b2c",
      "@ma1b2c3 ",
      "@lmcp_gx",
      "@other"
    ]
    for (const option of [...others, "status-right", "@lmcp_g12345678901234567"]) {
      assert.notMatch(option, protocolOptionPattern, option)
    }
  })

  it("reads a run's ID back out of its options and channel, and nothing else", () => {
    assert.strictEqual(runOfOption("record", paneRunOptions.record(runId)), runId)
    assert.strictEqual(runOfOption("successor", paneRunOptions.successor(runId)), runId)
    assert.strictEqual(runOfOption("end", protocolNames(runId).end), runId)
    assert.isUndefined(runOfOption("record", protocolNames(runId).end))
    assert.isUndefined(runOfOption("record", `${paneRunOptions.record(runId)}0`))
    assert.isUndefined(runOfOption("template", protocolNames(runId).markTemplate))
    assert.strictEqual(runOfChannel(protocolNames(runId).channel), runId)
    assert.isUndefined(runOfChannel(`${channelPrefix}${runId.toUpperCase()}`))
    assert.isUndefined(runOfChannel("a1b2c3"))
    assert.strictEqual(generationOfOption(paneRunOptions.typedAt(41)), 41)
    assert.isUndefined(generationOfOption(paneRunOptions.generation))
    assert.isTrue(runIdPattern.test(runId))
    assert.isFalse(runIdPattern.test("a1b2c"))
  })

  it("names paste buffers by the instance's tag, which the sweep and the grammar read back", () => {
    const buffer = pasteBufferName(tag, "0a1b2c")
    assert.strictEqual(bufferTag(buffer), tag)
    assert.match(buffer, pasteBufferPattern)
    // An instance whose pid namespace could not be read has an empty namespace in its tag.
    assert.match(pasteBufferName(formatTag({ pid: 1, started: 2, namespace: "" }), "ab"), pasteBufferPattern)
    assert.notMatch(pasteBufferName(tag, "xyz"), pasteBufferPattern)
    assert.notMatch("other-buffer", pasteBufferPattern)
  })

  it("names a connection's hidden session by the instance's tag, which startup reads back", () => {
    assert.strictEqual(controlSessionTag(controlSessionName(tag)), tag)
    assert.notInclude(controlSessionName(tag), ".")
    assert.isUndefined(controlSessionTag("work"))
  })

  it("tells a guard's mark from an option's name", () => {
    assert.isTrue(isGuardMark(marks.collected))
    assert.isTrue(isGuardMark(`${marks.stale}:1:0:0:0:2:80x24:g3`))
    assert.isFalse(isGuardMark(marks.stale))
    assert.isFalse(isGuardMark(marks.separator(runId)))
    assert.isFalse(isGuardMark("status-right"))
  })
})

describe("the protocol-name check", () => {
  const planted = (line: string) => spellingsIn("src/programs/x.ts", `const a = 1\n${line}\n`)

  it("finds a protocol name spelled outside the table, in a string, a template or a pattern", () => {
    for (
      const line of [
        `const o = "@lmcp_claim"`,
        "const f = `#{@lmcp_end_${id}}`",
        "const t = `@l${id}`",
        `const c = "lmcp_" + id`,
        `const m = "lmcp-run-collected"`,
        `const b = "libtmux-mcp-paste-" + tag`,
        "const p = /^@[lm][0-9a-f]{6}$/u",
        "const r = /already set: @lmcp_g[0-9]/u",
        `const fields = { "@lmcp_done": "string" }`
      ]
    ) {
      const found = planted(line)
      assert.strictEqual(found.length, 1, line)
      assert.strictEqual(found[0]!.line, 2, line)
    }
  })

  it("passes comments, other names and the table itself", () => {
    assert.deepStrictEqual(planted("// the claim (`@lmcp_claim`) and `@l<id>`"), [])
    assert.deepStrictEqual(planted("/* lmcp_<id> */ const x = \"@libtmux-mcp-started-by\""), [])
    assert.deepStrictEqual(planted(`import { Server } from "@modelcontextprotocol/sdk/server/index.js"`), [])
    const table = readFileSync("src/domain/protocolNames.ts", "utf8")
    assert.isAbove(spellingsIn("src/programs/x.ts", table).length, 5)
    assert.deepStrictEqual(spellingsIn("src/domain/protocolNames.ts", table), [])
  })
})
