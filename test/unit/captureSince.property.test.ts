/**
 * capture_since over generated histories, against a scripted pane answered the way tmux answers
 * `display-message` and `capture-pane -S`: lines written, history cleared, screen and history
 * cleared, history trimmed a tenth at a time at its limit, and calls that pass the last cursor.
 * Each call returns exactly the lines written since the previous one that the pane still holds,
 * unless it says lines were missed; it says so only when history was cleared or trimmed since, or
 * was within a tenth of its limit (where tmux trims without a trace), and then returns the screen.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { SocketPin } from "../../src/services/SocketPin.ts"
import { TmuxObserve } from "../../src/services/Tmux.ts"
import { capture_since } from "../../src/tools/inspect/capture_since.ts"
import { checkProperty } from "../support/property.ts"
import { scriptedObserve } from "../support/scriptedTmux.ts"

const height = 5
const historyLimit = 30

// Blank lines are left out: a blank line written onto a blank row leaves no trace to find.
const Step = Schema.Union([
  Schema.Struct({
    write: Schema.Array(Schema.Literals(["$ ls", "a", "b", "$"])).check(Schema.isMinLength(1), Schema.isMaxLength(6))
  }),
  Schema.Literals(["call", "clear history", "clear"])
])
const History = Schema.Struct({
  steps: Schema.Array(Step).check(Schema.isMaxLength(30)),
  /**
   * Whether lines repeat. Once history is cleared, a line is known only by its text: a pane cleared
   * and written again as it was cannot be told from one left alone. So histories with repeated
   * lines are not cleared (tmux still trims them), and histories that are cleared write distinct lines.
   */
  repeats: Schema.Boolean
})
type History = typeof History.Type

interface Row {
  readonly text: string
  /** Written since the last call. */
  fresh: boolean
}
const blank = (): Row => ({ text: "", fresh: false })

/** A pane: history, screen rows and the cursor row; the cursor sits at the start of its row. */
class Pane {
  history: Array<Row> = []
  screen: Array<Row> = Array.from({ length: height }, blank)
  cursorY = 0
  /** Rows of history tmux dropped or cleared since the last call. */
  lost = false

  write(text: string) {
    this.screen[this.cursorY] = { text, fresh: true }
    if (this.cursorY < height - 1) {
      this.cursorY++
      return
    }
    // tmux trims a tenth of the limit when the history is full, before a row scrolls in.
    if (this.history.length >= historyLimit) {
      this.history.splice(0, historyLimit / 10)
      this.lost = true
    }
    this.history.push(this.screen.shift()!)
    this.screen.push(blank())
  }

  /** The lines written since the last call that the pane still holds. */
  fresh(): Array<string> {
    return [...this.history, ...this.screen].filter((row) => row.fresh).map((row) => row.text)
  }

  /** What `display-message` and `capture-pane -p -N -S from -E -` print. */
  answer(command: ReadonlyArray<string>): string {
    if (command[0] === "display-message") {
      const fields: Record<string, string | number> = {
        pane_id: "%1",
        pane_pid: 10,
        pane_dead: 0,
        pane_in_mode: 0,
        alternate_on: 0,
        cursor_x: 0,
        cursor_y: this.cursorY,
        history_size: this.history.length,
        history_limit: historyLimit,
        pane_height: height,
        pane_width: 80,
        pane_current_command: "bash"
      }
      return `${command.at(-1)!.replace(/#\{(\w+)\}/gu, (_, key: string) => String(fields[key]))}\n`
    }
    const from = command[command.indexOf("-S") + 1]!
    const rows = [...this.history, ...this.screen]
    const start = from === "-" ? 0 : Math.min(Math.max(this.history.length + Number(from), 0), rows.length - 1)
    return rows.slice(start).map((row) => `${row.text}\n`).join("")
  }
}

const served = (pane: Pane) => <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.provideService(
      TmuxObserve,
      scriptedObserve((commands) => Effect.succeed(commands.map((command) => pane.answer(command)).join("")))
    ),
    Effect.provideService(SocketPin, { resolvedPath: "/test/socket" } as SocketPin["Service"])
  )

interface Result {
  readonly cursor: string
  readonly output: string
  readonly lines_missed: boolean
}
type Capture = (
  input: { readonly pane_id: string; readonly cursor?: string }
) => Effect.Effect<Result, unknown, TmuxObserve | SocketPin>

const capture: Capture = (input) => capture_since.run(input) as Effect.Effect<Result, unknown, TmuxObserve | SocketPin>

const returnsWhatWasWritten = (call: Capture) => (history: History) =>
  Effect.gen(function*() {
    const pane = new Pane()
    const serve = served(pane)
    let cursor = (yield* serve(call({ pane_id: "%1" }))).cursor
    let nearLimit = false
    let serial = 0
    for (const step of history.steps) {
      if (step === "clear history" || step === "clear") {
        if (history.repeats) continue
        pane.lost ||= pane.history.length > 0
        pane.history = []
        if (step === "clear") {
          pane.lost = true
          pane.screen = pane.screen.map(blank)
          pane.cursorY = 0
        }
      } else if (step === "call") {
        nearLimit ||= pane.history.length >= historyLimit - historyLimit / 10
        const result = yield* serve(call({ pane_id: "%1", cursor }))
        const output = result.output === "" ? [] : result.output.split("\n")
        if (result.lines_missed) {
          assert.isTrue(
            pane.lost || nearLimit,
            `lines_missed though nothing was cleared or trimmed; written: ${JSON.stringify(pane.fresh())}`
          )
          assert.deepStrictEqual(
            output,
            pane.screen.slice(0, pane.cursorY).map((row) => row.text),
            "a call that missed lines returns the screen"
          )
        } else {
          assert.deepStrictEqual(output, pane.fresh())
        }
        cursor = result.cursor
        for (const row of [...pane.history, ...pane.screen]) row.fresh = false
        pane.lost = false
        nearLimit = pane.history.length >= historyLimit - historyLimit / 10
      } else {
        for (const text of step.write) pane.write(history.repeats ? text : `${text} #${serial++}`)
      }
    }
  })

/** A capture_since that drops the cursor: what the property must catch. */
const forgetful: Capture = ({ pane_id }) => capture({ pane_id })

describe("capture_since over generated histories", () => {
  it.effect.prop(
    "returns exactly the lines written since the last cursor, or says it missed some, only when it may have",
    [History],
    ([history]) => returnsWhatWasWritten(capture)(history),
    { arbitrary: { runs: 300 } }
  )

  const lines = (count: number) => Array.from({ length: count }, (_, i) => (["a", "b", "$"] as const)[i % 3]!)

  it.effect(
    "says lines were missed, or returns what followed, " +
      "when the screen was cleared on a pane without history",
    () =>
      returnsWhatWasWritten(capture)({
        steps: [{ write: ["b"] }, "call", "clear", { write: ["$"] }, "call"],
        repeats: false
      })
  )

  it.effect("finds the cursor again when history was cleared and grew back past its size", () =>
    returnsWhatWasWritten(capture)({
      steps: [{ write: ["b", "$", "a", "$", "a"] }, "call", "clear history", { write: ["b"] }, "call"],
      repeats: false
    }))

  it.effect("does not take the blank cursor row for the cursor's blank anchor when history is near its limit", () =>
    returnsWhatWasWritten(capture)({
      steps: [{ write: lines(20) }, "call", { write: lines(11) }, "call"],
      repeats: true
    }))

  it.effect("keeps its place when a line of repeated output arrives between its reads", () =>
    Effect.gen(function*() {
      const pane = new Pane()
      for (let i = 0; i < 8; i++) pane.write("x")
      let invocations = 0
      // The pane writes once right after the call's first tmux invocation.
      const busy = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        effect.pipe(
          Effect.provideService(
            TmuxObserve,
            scriptedObserve((commands) =>
              Effect.sync(() => {
                const out = commands.map((command) => pane.answer(command)).join("")
                if (++invocations === 1) pane.write("x")
                return out
              })
            )
          ),
          Effect.provideService(SocketPin, { resolvedPath: "/test/socket" } as SocketPin["Service"])
        )
      const { cursor } = yield* served(pane)(capture({ pane_id: "%1" }))
      for (const row of [...pane.history, ...pane.screen]) row.fresh = false
      pane.write("x")
      pane.write("x")
      const result = yield* busy(capture({ pane_id: "%1", cursor }))
      assert.isFalse(result.lines_missed)
      assert.deepStrictEqual(result.output.split("\n"), ["x", "x", "x"])
    }))

  it.effect("the property catches a capture_since that ignores its cursor", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* checkProperty(History, returnsWhatWasWritten(forgetful), 100), "Falsified")
    }))
})
