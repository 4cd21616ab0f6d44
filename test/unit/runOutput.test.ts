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

/** A tmux that answers captures of `rows` as tmux 3.3a does, with `history` rows of history. */
const scripted = (rows: ReadonlyArray<{ readonly text: string; readonly wrapped: boolean }>, history: number) => {
  const reads: Array<number> = []
  const answer = (command: ReadonlyArray<string>): string => {
    if (command[0] === "display-message") return command.at(-1) === "#{history_size}" ? `${history}\n` : "lmcp-part\n"
    const at = (flag: string) => Number(command[command.indexOf(flag) + 1]) + history
    const [first, last] = [at("-S"), Math.min(at("-E"), rows.length - 1)]
    reads.push(last - first + 1)
    let out = ""
    for (let row = first; row <= last; row++) {
      out += rows[row]!.text
      if (command.includes("-N") || !rows[row]!.wrapped) out += "\n"
    }
    return out
  }
  const tmux: Script = (commands) => Effect.succeed(commands.map(answer).join(""))
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
        const pane = scripted(rows, rows.length - 10)
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
      }).pipe(provide(scripted(rows, rows.length - 10).tmux))
      assert.isTrue(read.partial)
      assert.isAtLeast(read.lines.length, 10)
    }))
})
