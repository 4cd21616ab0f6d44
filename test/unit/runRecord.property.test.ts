/**
 * The run record's codec (domain/runRecord.ts): for any record, decode(encode(record)) is the record;
 * a record of another version, or a damaged one (cut short, a field missing or of the wrong kind),
 * is reported as undecodable, never decoded into a run.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { PaneId } from "../../src/domain/ids.ts"
import { encodeRecord, readRecord, recordVersion, type RunRecord } from "../../src/domain/runRecord.ts"

const Int = Schema.Int.check(Schema.isBetween({ minimum: -1_000_000, maximum: 1_000_000 }))
const Input = Schema.Struct({
  id: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 0xffffff })),
  pane: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 99_999 })),
  panePid: Int,
  tty: Schema.String,
  shell: Schema.String,
  promptRow: Int,
  trailer: Schema.String,
  markStart: Schema.Boolean,
  prompt: Schema.String,
  typedStart: Schema.String,
  echoRows: Int,
  screenRows: Int,
  inShell: Schema.optionalKey(Schema.Boolean),
  remainOnExit: Schema.optionalKey(Schema.Literals(["off", "failed"])),
  instance: Int,
  tag: Schema.optionalKey(Schema.String),
  prefix: Schema.String,
  digest: Schema.String,
  returned: Schema.optionalKey(Schema.Struct({
    row: Int,
    shift: Int,
    column: Schema.optionalKey(Int),
    before: Schema.optionalKey(Schema.String),
    lineRow: Schema.optionalKey(Int)
  })),
  task: Schema.optionalKey(Schema.Struct({
    nonce: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 0xffffff })),
    created: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2 ** 50 })),
    ttlMs: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 2 ** 40 }))
  }))
})
type Input = typeof Input.Type

/** `-0` reads back as `0` through JSON: the records compared hold no `-0`. */
const n = (value: number) => value + 0

const recordOf = (input: Input): RunRecord => ({
  run: {
    id: input.id.toString(16).padStart(6, "0"),
    paneId: `%${input.pane}` as PaneId,
    panePid: n(input.panePid),
    tty: input.tty,
    shell: input.shell,
    promptRow: n(input.promptRow),
    trailer: input.trailer,
    markStart: input.markStart,
    prompt: input.prompt,
    typedStart: input.typedStart,
    echoRows: n(input.echoRows),
    screenRows: n(input.screenRows),
    ...(input.inShell === undefined ? {} : { inShell: input.inShell }),
    ...(input.remainOnExit === undefined ? {} : { remainOnExit: input.remainOnExit })
  },
  instance: n(input.instance),
  ...(input.tag === undefined ? {} : { tag: input.tag }),
  command: { prefix: input.prefix, digest: input.digest },
  ...(input.returned === undefined ? {} : {
    returned: {
      row: n(input.returned.row),
      shift: n(input.returned.shift),
      ...(input.returned.column === undefined ? {} : { column: n(input.returned.column) }),
      ...(input.returned.before === undefined ? {} : { before: input.returned.before }),
      ...(input.returned.lineRow === undefined ? {} : { lineRow: n(input.returned.lineRow) })
    }
  }),
  ...(input.task === undefined ? {} : {
    task: {
      nonce: input.task.nonce.toString(16).padStart(32, "0"),
      created: n(input.task.created),
      ttlMs: n(input.task.ttlMs)
    }
  })
})

/** The record's JSON as stored, changed by `change`, stored again. */
const rewritten = (record: RunRecord, change: (json: Record<string, any>) => void): string => {
  const json = JSON.parse(Buffer.from(encodeRecord(record), "base64").toString("utf8")) as Record<string, any>
  change(json)
  return Buffer.from(JSON.stringify(json)).toString("base64")
}

const Damage = Schema.Struct({
  cut: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10_000 })),
  key: Schema.Literals(["v", "run", "instance", "command", "id", "paneId", "panePid", "markStart", "echoRows"]),
  how: Schema.Literals(["cut", "drop", "retype"])
})

describe("the run record's codec", () => {
  it.effect.prop("decode(encode(record)) is the record", [Input], ([input]) =>
    Effect.sync(() => {
      const record = recordOf(input)
      assert.deepStrictEqual(readRecord(encodeRecord(record)), { _tag: "Decoded", record })
    }), { arbitrary: { runs: 200 } })

  it.effect.prop(
    "a record of another version is reported, not decoded",
    [Input, Schema.Int.check(Schema.isBetween({ minimum: -5, maximum: 50 }))],
    ([input, version]) =>
      Effect.sync(() => {
        const other = version === recordVersion ? version + 1 : version
        const read = readRecord(rewritten(recordOf(input), (json) => (json.v = other)))
        assert.deepStrictEqual(read, {
          _tag: "Undecodable",
          reason: `it is a record of version ${other}, and this server reads version ${recordVersion}`
        })
      }),
    { arbitrary: { runs: 100 } }
  )

  it.effect.prop("a damaged record is reported, not decoded", [Input, Damage], ([input, damage]) =>
    Effect.sync(() => {
      const record = recordOf(input)
      const stored = encodeRecord(record)
      // Base64's padding carries nothing: a cut takes at least one character of the data itself.
      const data = stored.replace(/=+$/, "")
      const value = damage.how === "cut"
        ? data.slice(0, damage.cut % data.length)
        : rewritten(record, (json) => {
          const holder = ["v", "run", "instance", "command"].includes(damage.key) ? json : json.run
          if (damage.how === "drop") delete holder[damage.key]
          else holder[damage.key] = typeof holder[damage.key] === "string" ? 7 : "seven"
        })
      const read = readRecord(value)
      if (value === "") assert.deepStrictEqual(read, { _tag: "Absent" })
      else assert.strictEqual(read._tag, "Undecodable", JSON.stringify(read))
    }), { arbitrary: { runs: 200 } })
})
