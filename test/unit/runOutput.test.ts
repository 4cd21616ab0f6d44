/**
 * Reading a run's output back in pieces, against a scripted pane whose rows wrap: the lines kept,
 * the lines and bytes counted above them, lines wrapped across piece boundaries, and the count that
 * stops at its time.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import type { PaneId } from "../../src/domain/ids.ts"
import { readOutput, rowsPerCount, rowsPerRead } from "../../src/programs/runOutput.ts"
import { ServerPane } from "../../src/services/ServerPane.ts"
import { SocketPin } from "../../src/services/SocketPin.ts"
import { PaneCommand, TmuxObserve } from "../../src/services/Tmux.ts"
import { type Script, scriptedCommand, scriptedObserve } from "../support/scriptedTmux.ts"

const width = 40

/** Lines of pseudo-random lengths (many wrap), and the pane rows they fill. */
const paneOf = (count: number, seed: number) => {
  let state = seed
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648)
  const lines = Array.from({ length: count }, (_, i) => `${i}:`.padEnd(next() % (width * 3), "x"))
  const rows: Array<{ readonly text: string; readonly wrapped: boolean }> = []
  for (const line of lines) {
    const pieces = line.match(new RegExp(`.{1,${width}}`, "gu")) ?? [""]
    pieces.forEach((text, i) => rows.push({ text, wrapped: i < pieces.length - 1 }))
  }
  return { lines, rows }
}

/**
 * A tmux that answers captures of `rows` as tmux 3.3a does (rows relative to the history, clamped
 * to the pane; with `-p` every capture ends with one newline, whether its last row wraps on or
 * not), with a screen of `screen` rows. Before each invocation `grow` rows of other output arrive
 * below (a prompt, a background job): the history grows and every row moves up.
 */
const scripted = (
  rows: ReadonlyArray<{ readonly text: string; readonly wrapped: boolean }>,
  screen: number,
  grow: (invocation: number) => number = () => 0
) => {
  const reads: Array<number> = []
  const pane = [...rows]
  const answer = (command: ReadonlyArray<string>): string => {
    const history = Math.max(0, pane.length - screen)
    if (command[0] === "display-message") {
      return command.at(-1) === "#{history_size}"
        ? `${history}\n`
        : `${command.at(-1)}\n`
    }
    const at = (flag: string) => {
      const n = Number(command[command.indexOf(flag) + 1])
      return Math.min(n < 0 && -n > history ? 0 : history + n, pane.length - 1)
    }
    const [first, last] = [Math.min(at("-S"), at("-E")), Math.max(at("-S"), at("-E"))]
    reads.push(last - first + 1)
    let out = ""
    for (let row = first; row <= last; row++) {
      out += pane[row]!.text
      if (command.includes("-N") || !pane[row]!.wrapped) out += "\n"
    }
    return out.endsWith("\n") ? out : `${out}\n`
  }
  let arrived = 0
  let invocations = 0
  const tmux: Script = (commands) =>
    Effect.sync(() => {
      for (let i = grow(invocations++); i > 0; i--) pane.push({ text: `other ${arrived++}`, wrapped: false })
      return commands.map(answer).join("")
    })
  return { tmux, reads }
}

/** The scripted tmux as every service a read may use (a missing pane is looked up through them). */
const provide = (tmux: Script) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.provideService(PaneCommand, scriptedCommand(tmux)),
    Effect.provideService(TmuxObserve, scriptedObserve(tmux)),
    Effect.provideService(SocketPin, {} as never),
    Effect.provideService(ServerPane, {} as never)
  )

const bytes = (lines: ReadonlyArray<string>) => lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0)

describe("readOutput", () => {
  for (const [count, maxLines] of [[30, 1000], [30_000, 1000], [30_000, 25_000], [80_000, 10]] as const) {
    it.effect(`${count} lines, max_lines ${maxLines}: the newest read whole, the rest counted exactly`, () =>
      Effect.gen(function*() {
        const { lines, rows } = paneOf(count, count + maxLines)
        const pane = scripted(rows, 10)
        const read = yield* readOutput({
          paneId: "%1" as PaneId,
          history: rows.length - 10,
          start: { row: 0, column: 0 },
          end: { row: rows.length - 1, column: width },
          maxLines,
          maxBytes: 64 * 1024 * 1024,
          countUntil: Number.MAX_SAFE_INTEGER,
          alternate: false
        }).pipe(provide(pane.tmux))
        assert.isAtLeast(read.lines.length, Math.min(maxLines, count))
        assert.deepStrictEqual(read.lines, lines.slice(read.droppedLines))
        assert.strictEqual(read.droppedBytes, bytes(lines.slice(0, read.droppedLines)))
        assert.isFalse(read.partial)
        assert.isAtMost(Math.max(...pane.reads), Math.max(rowsPerRead, rowsPerCount), "no read past a piece")
      }))
  }

  it.effect("stops counting at its time and says the count is partial", () =>
    Effect.gen(function*() {
      const { rows } = paneOf(80_000, 7)
      const read = yield* readOutput({
        paneId: "%1" as PaneId,
        history: rows.length - 10,
        start: { row: 0, column: 0 },
        end: { row: rows.length - 1, column: width },
        maxLines: 10,
        maxBytes: 1024,
        countUntil: 0,
        alternate: false
      }).pipe(provide(scripted(rows, 10).tmux))
      assert.isTrue(read.partial)
      assert.isAtLeast(read.lines.length, 10)
    }))

  // Rows that arrive below the output between reads move it up: every read must still end where
  // the output ends, and count exactly what it leaves out.
  for (
    const [count, maxLines, grow] of [[300, 1000, 1], [300, 1000, 3], [30_000, 1000, 2], [30_000, 25_000, 500], [
      80_000,
      10,
      7
    ]] as const
  ) {
    it.effect(`${count} lines, max_lines ${maxLines}, ${grow} rows arriving before every read: exact`, () =>
      Effect.gen(function*() {
        const { lines, rows } = paneOf(count, count + grow)
        const pane = scripted(rows, 10, () => grow)
        const read = yield* readOutput({
          paneId: "%1" as PaneId,
          history: rows.length - 10,
          start: { row: 0, column: 0 },
          end: { row: rows.length - 1, column: width },
          maxLines,
          maxBytes: 64 * 1024 * 1024,
          countUntil: Number.MAX_SAFE_INTEGER,
          alternate: false
        }).pipe(provide(pane.tmux))
        assert.isAtLeast(read.lines.length, Math.min(maxLines, count))
        assert.strictEqual(read.lines.at(-1), lines.at(-1))
        assert.deepStrictEqual(read.lines, lines.slice(read.droppedLines))
        assert.strictEqual(read.droppedBytes, bytes(lines.slice(0, read.droppedLines)))
        assert.isFalse(read.partial)
        assert.isFalse(read.trimmed)
      }))
  }

  it.effect("the bottom rows read with the head are the newest piece, whatever arrived since", () =>
    Effect.gen(function*() {
      const { lines, rows } = paneOf(3_000, 11)
      const history = rows.length - 10
      const tail = rows.slice(-40)
      const bottom = {
        firstRow: rows.length - 40,
        rows: tail.map((row) => row.text),
        joined: tail.reduce<Array<string>>(
          (joined, row, i) =>
            i > 0 && tail[i - 1]!.wrapped ? [...joined.slice(0, -1), joined.at(-1)! + row.text] : [
              ...joined,
              row.text
            ],
          []
        )
      }
      const pane = scripted(rows, 10, () => 2)
      const read = yield* readOutput({
        paneId: "%1" as PaneId,
        history,
        start: { row: 0, column: 0 },
        end: { row: rows.length - 1, column: width },
        maxLines: 1000,
        maxBytes: 64 * 1024 * 1024,
        countUntil: Number.MAX_SAFE_INTEGER,
        alternate: false,
        bottom
      }).pipe(provide(pane.tmux))
      assert.deepStrictEqual(read.lines, lines.slice(read.droppedLines))
      assert.strictEqual(read.droppedBytes, bytes(lines.slice(0, read.droppedLines)))
      assert.isFalse(read.partial)
    }))

  it.effect("a pane that scrolls on faster every read: the newest lines exact, the count said to be partial", () =>
    Effect.gen(function*() {
      const { lines, rows } = paneOf(3_000, 5)
      const tail = rows.slice(-30)
      const bottom = {
        firstRow: rows.length - 30,
        rows: tail.map((row) => row.text),
        joined: tail.reduce<Array<string>>(
          (joined, row, i) =>
            i > 0 && tail[i - 1]!.wrapped ? [...joined.slice(0, -1), joined.at(-1)! + row.text] : [
              ...joined,
              row.text
            ],
          []
        )
      }
      const read = yield* readOutput({
        paneId: "%1" as PaneId,
        history: rows.length - 10,
        start: { row: 0, column: 0 },
        end: { row: rows.length - 1, column: width },
        maxLines: 1000,
        maxBytes: 64 * 1024 * 1024,
        countUntil: Number.MAX_SAFE_INTEGER,
        alternate: false,
        bottom
      }).pipe(provide(scripted(rows, 10, (invocation) => 20 * 4 ** invocation).tmux))
      assert.isTrue(read.partial)
      assert.isFalse(read.trimmed)
      assert.isAtLeast(read.lines.length, 5)
      assert.deepStrictEqual(read.lines, lines.slice(-read.lines.length))
    }))
})
