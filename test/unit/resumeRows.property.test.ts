/**
 * A run's answers joined (the first answer, then every resume) give its output exactly once, against
 * a scripted terminal that wraps rows, draws wide characters in two cells and answers `capture-pane`
 * as tmux 3.3a does: the read-back (programs/runReadBack.ts `outputOf`), with where each answer
 * ended kept in the run's record as `outputSoFar` keeps it. For a program that never moves the
 * cursor back no row comes twice, prompts and partial rows included; a line redrawn after a
 * carriage return comes again whole and the answer says so.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { cellWidth } from "../../src/domain/cells.ts"
import type { PaneId } from "../../src/domain/ids.ts"
import { encodeRecord, type RunRecord } from "../../src/domain/runRecord.ts"
import type { Capture, Head } from "../../src/programs/runHead.ts"
import { outputOf, type RunOutput } from "../../src/programs/runReadBack.ts"
import { ServerPane } from "../../src/services/ServerPane.ts"
import type { Run } from "../../src/services/ShellRuns.ts"
import { SocketPin } from "../../src/services/SocketPin.ts"
import { PaneCommand, TmuxObserve } from "../../src/services/Tmux.ts"
import { type Script, scriptedCommand, scriptedObserve } from "../support/scriptedTmux.ts"

const width = 8
const height = 4

/**
 * A terminal: rows of cells (a wide character's second cell is ""), whether each wraps on into the
 * next, and the cursor. Row 0 holds the prompt and the typed command; the output starts at row 1.
 */
class Terminal {
  rows: Array<{ cells: Array<string>; wrapped: boolean }> = [{ cells: [..."$ run"], wrapped: false }, {
    cells: [],
    wrapped: false
  }]
  y = 1
  x = 0

  write(text: string) {
    for (const char of text) {
      if (char === "\n") {
        this.newRow(false)
      } else if (char === "\r") {
        this.x = 0
      } else {
        const cells = cellWidth(char)
        if (this.x + cells > width) this.newRow(true)
        const row = this.rows[this.y]!.cells
        while (row.length < this.x) row.push(" ")
        row.splice(this.x, cells, char, ...(cells === 2 ? [""] : []))
        this.x += cells
      }
    }
  }

  private newRow(wrapped: boolean) {
    this.rows[this.y]!.wrapped = wrapped
    this.y++
    this.x = 0
    this.rows[this.y] ??= { cells: [], wrapped: false }
  }

  /** The rows tmux holds: the history and a screen of `height` rows. */
  all() {
    const rows = this.rows.map((row) => ({ text: row.cells.join(""), wrapped: row.wrapped }))
    while (rows.length < height) rows.push({ text: "", wrapped: false })
    return rows
  }

  get history() {
    return Math.max(0, this.all().length - height)
  }

  /** What tmux prints for `display-message` of the history size and for `capture-pane -S -E` with `-N` or `-J`. */
  answer(command: ReadonlyArray<string>): string {
    const rows = this.all()
    const history = this.history
    if (command[0] === "display-message") {
      return command.at(-1) === "#{history_size}"
        ? `${history}\n`
        : `${command.at(-1)}\n`
    }
    const at = (flag: string) => {
      const n = Number(command[command.indexOf(flag) + 1])
      return Math.min(n < 0 && -n > history ? 0 : history + n, rows.length - 1)
    }
    let out = ""
    for (let row = at("-S"); row <= at("-E"); row++) {
      out += rows[row]!.text
      if (command.includes("-N") || !rows[row]!.wrapped) out += "\n"
    }
    return out.endsWith("\n") ? out : `${out}\n`
  }
}

const run: Run = {
  id: "0000a1",
  paneId: "%1" as PaneId,
  panePid: 10,
  tty: "/dev/pts/1",
  shell: "dash",
  promptRow: 0,
  trailer: "run",
  markStart: true,
  prompt: "$ ",
  typedStart: "run",
  echoRows: 1,
  screenRows: height
}

/**
 * One answer: the output so far, read as a resume reads it, from the record's `returned`; the
 * record then keeps where it ended.
 */
const answer = (terminal: Terminal, record: RunRecord, withBottom: boolean) =>
  Effect.gen(function*() {
    const history = terminal.history
    const head: Head = {
      endRecord: "",
      mark: "0 1 0",
      typed: "0 0 5 100000",
      runRecord: encodeRecord(record),
      collected: "",
      claim: "",
      history,
      cursorY: terminal.y - history,
      cursorX: terminal.x,
      alternate: false,
      dead: false,
      panePid: run.panePid,
      program: "sh"
    }
    const rows = terminal.all()
    const joined = rows.reduce<Array<string>>(
      (lines, row, i) =>
        i > 0 && rows[i - 1]!.wrapped ? [...lines.slice(0, -1), lines.at(-1)! + row.text] : [...lines, row.text],
      []
    )
    const bottom: Capture = { head, rows: rows.map((row) => row.text), joined, firstRow: 0 }
    const tmux: Script = (commands) => Effect.sync(() => commands.map((command) => terminal.answer(command)).join(""))
    const output = yield* outputOf(
      run,
      head,
      { maxLines: 10_000, maxBytes: 1 << 24, countUntil: Number.MAX_SAFE_INTEGER },
      withBottom ? bottom : undefined
    ).pipe(
      Effect.provideService(PaneCommand, scriptedCommand(tmux)),
      Effect.provideService(TmuxObserve, scriptedObserve(tmux)),
      Effect.provideService(SocketPin, {} as never),
      Effect.provideService(ServerPane, {} as never)
    )
    const through = "through" in output ? output.through : undefined
    return { output: output as RunOutput, record: through === undefined ? record : { ...record, returned: through } }
  })

/** The answers so far joined by what each says of its first line (see run_shell_command's output_first_line). */
const join = (joined: Array<string>, output: RunOutput): Array<string> => {
  const lines = [...output.lines]
  if (!output.continued) return lines
  const firstLine = (output as { readonly firstLine?: string }).firstLine
  if (firstLine === undefined || lines.length === 0) return [...joined, ...lines]
  const head = firstLine === "continues" ? (joined.at(-1) ?? "") + lines[0] : lines[0]!
  return [...joined.slice(0, -1), head, ...lines.slice(1)]
}

/** The output lines a stream shows (the cursor's own row left out while nothing is on it). */
const linesOf = (stream: string): Array<string> => {
  const lines = stream.split("\n")
  return lines.at(-1) === "" ? lines.slice(0, -1) : lines
}

/** Writes of a program that never moves the cursor back: words, prompts, wide characters, newlines. */
const Program = Schema.Array(
  Schema.Union([
    Schema.Struct({ write: Schema.Literals(["a", "bc", "中", "文字", " ", "> ", "Name? ", "\n", "wxyzuvst", "é"]) }),
    Schema.Struct({ answer: Schema.Boolean })
  ])
).check(Schema.isMaxLength(40))

const answersGiveTheOutputOnce = (
  program: ReadonlyArray<{ readonly write: string } | { readonly answer: boolean }>
) =>
  Effect.gen(function*() {
    const terminal = new Terminal()
    let record: RunRecord = { run, instance: 1, command: { prefix: "run", digest: "0" } }
    let stream = ""
    let joined: Array<string> = []
    for (const step of [...program, { answer: true }]) {
      if ("write" in step) {
        terminal.write(step.write)
        stream += step.write
        continue
      }
      const read = yield* answer(terminal, record, step.answer)
      record = read.record
      joined = join(joined, read.output)
      assert.deepStrictEqual(joined, linesOf(stream), `answers joined; this one: ${JSON.stringify(read.output)}`)
      assert.notStrictEqual((read.output as { readonly firstLine?: string }).firstLine, "repeated")
    }
  })

describe("a run's answers joined", () => {
  it.effect.prop(
    "give its output exactly once, partial rows, wrapped rows and wide characters included",
    [Program],
    ([program]) => answersGiveTheOutputOnce(program),
    { arbitrary: { runs: 400 } }
  )

  it.effect("a prompt the answer ended within: the resume returns only what was typed after it", () =>
    answersGiveTheOutputOnce([{ write: "ok\n" }, { write: "Name? " }, { answer: false }, { write: "bob\nhi bob\n" }]))

  it.effect("a record written before the column was kept: the row comes again whole, as before", () =>
    Effect.gen(function*() {
      const terminal = new Terminal()
      terminal.write("ok\nName? ")
      const first = yield* answer(terminal, { run, instance: 1, command: { prefix: "run", digest: "0" } }, false)
      assert.deepInclude(first.record.returned, { row: 2, shift: 0, column: 6 })
      const { row, shift } = first.record.returned!
      terminal.write("bob\n")
      const older = yield* answer(terminal, { ...first.record, returned: { row, shift } }, false)
      assert.deepStrictEqual(older.output.lines, ["Name? bob"])
      assert.isTrue(older.output.continued)
      assert.notProperty(older.output, "firstLine")
    }))

  it.effect("a line redrawn after a carriage return comes again whole, said to be repeated", () =>
    Effect.gen(function*() {
      const terminal = new Terminal()
      let record: RunRecord = { run, instance: 1, command: { prefix: "run", digest: "0" } }
      terminal.write("ok\n 50%")
      const first = yield* answer(terminal, record, false)
      assert.deepStrictEqual(first.output.lines, ["ok", " 50%"])
      record = first.record
      terminal.write("\r 75%")
      const same = yield* answer(terminal, record, true)
      assert.deepInclude(same.output, { lines: ["ok", " 75%"].slice(1), continued: true, firstLine: "repeated" })
      // A wrapped line redrawn on its last row comes again from its first row.
      terminal.write("\nabcdefghij")
      const wrapped = yield* answer(terminal, same.record, false)
      assert.deepInclude(wrapped.output, { lines: ["", "abcdefghij"], firstLine: "continues" })
      terminal.write("\rXY")
      const redrawn = yield* answer(terminal, wrapped.record, false)
      assert.deepInclude(redrawn.output, { lines: ["abcdefghXY"], firstLine: "repeated" })
      terminal.write("!\n")
      const after = yield* answer(terminal, redrawn.record, true)
      assert.deepInclude(after.output, { lines: ["!"], firstLine: "continues" })
    }))
})
