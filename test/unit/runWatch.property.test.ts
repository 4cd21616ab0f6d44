/**
 * run_shell_command's readiness over generated pane timelines under TestClock: the shell starts,
 * runs startup files, sits at its prompt, runs a job, waits on a program that reads the terminal,
 * or the pane enters copy mode, in any order and for any time. Whatever happens, readiness is
 * declared only while the shell sits at its prompt (nothing can be typed before), on a pane state
 * read while it did; every refusal names what the pane showed at that moment; and a shell that sits
 * at its prompt for a few polls before the deadline is never refused.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import type { PaneId } from "../../src/domain/ids.ts"
import { awaitReady, type KernelProbe, type PaneLook, timings } from "../../src/programs/runWatch.ts"
import type { ShellProcess } from "../../src/services/PaneProcess.ts"
import { checkProperty } from "../support/property.ts"

const Phase = Schema.Struct({
  is: Schema.Literals(["spawning", "starting", "idle", "young job", "old job", "asks", "copy mode"]),
  forMs: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_500 }))
})
const Timeline = Schema.Struct({
  phases: Schema.Array(Phase).check(Schema.isMinLength(1), Schema.isMaxLength(8)),
  deadline: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 4_000 }))
})
type Timeline = typeof Timeline.Type
type Is = typeof Phase.Type["is"]

/** The phase at `t`; the last one lasts forever. */
const phaseAt = (timeline: Timeline, t: number): Is => {
  let end = 0
  for (const phase of timeline.phases) {
    end += phase.forMs
    if (t < end) return phase.is
  }
  return timeline.phases.at(-1)!.is
}

const idle: ShellProcess = {
  comm: "bash",
  inForeground: true,
  reading: true,
  foreground: "bash",
  foregroundGroup: 10,
  ageMs: 0
}
const shells: Record<Is, ShellProcess> = {
  "spawning": { ...idle, comm: "tmux: server", reading: false },
  "starting": { ...idle, reading: false },
  "idle": idle,
  "young job": { ...idle, reading: false, inForeground: false, foreground: "sleep", foregroundGroup: 20 },
  "old job": {
    ...idle,
    reading: false,
    inForeground: false,
    foreground: "make",
    foregroundGroup: 20,
    ageMs: 3_600_000
  },
  "asks": { ...idle, reading: false, inForeground: false, foreground: "ssh", foregroundGroup: 20, ageMs: 3_600_000 },
  "copy mode": idle
}

const now = Effect.clockWith((clock) => clock.currentTimeMillis)

interface Seen {
  readonly at: number
  readonly is: Is
  readonly by: "look" | "kernel"
}

/** The pane and kernel as the timeline says, recording every look at them. */
const scripted = (timeline: Timeline, seen: Array<Seen>) => {
  const observe = (by: Seen["by"]) =>
    Effect.map(now, (at) => {
      const is = phaseAt(timeline, at)
      seen.push({ at, is, by })
      return is
    })
  return {
    kernel: {
      shell: () => Effect.map(observe("kernel"), (is) => shells[is]),
      front: () =>
        Effect.map(now, (t) => ({
          pid: 30,
          program: "ssh",
          programIsShell: false,
          wakes: false,
          wait: phaseAt(timeline, t) === "asks" ? "reads" as const : "elsewhere" as const
        })),
      mode: () => Effect.succeed({ icanon: true, echo: true })
    } satisfies KernelProbe,
    look: Effect.map(observe("look"), (is): PaneLook => ({
      pane_pid: 10,
      cursor_x: 2,
      pane_dead: false,
      pane_in_mode: is === "copy mode",
      alternate_on: false,
      pane_current_command: "bash",
      pane_tty: "/dev/pts/1"
    }))
  }
}

const refusalFor: Record<string, ReadonlyArray<Is>> = {
  "copy mode": ["copy mode"],
  "holds the keyboard": ["asks"],
  "not the shell at its prompt": ["old job"],
  "for the whole timeout": ["spawning", "starting", "young job", "old job"]
}

const readyOnlyAtThePrompt = (ready: typeof awaitReady) => (timeline: Timeline) =>
  Effect.gen(function*() {
    const seen: Array<Seen> = []
    const { kernel, look } = scripted(timeline, seen)
    const fiber = yield* Effect.forkChild(Effect.result(ready("%1" as PaneId, look, kernel, timeline.deadline)))
    yield* TestClock.adjust(timeline.deadline + timings.readyPoll)
    assert.isDefined(fiber.pollUnsafe(), "still waiting a poll past the deadline")
    const result = yield* Fiber.join(fiber)
    const last = seen.at(-1)!
    if (result._tag === "Success") {
      const state = seen.filter(({ by }) => by === "look").at(-1)!
      assert.strictEqual(state.is, "idle", `ready on a pane state read at ${state.at} while ${state.is}`)
      assert.strictEqual(last.is, "idle", `ready at ${last.at} while ${last.is}`)
      return
    }
    const reason = Object.keys(refusalFor).find((words) => result.failure.message.includes(words))
    assert.isDefined(reason, result.failure.message)
    assert.isTrue(refusalFor[reason!]!.includes(last.is), `${result.failure.message} (at ${last.at}, ${last.is})`)
    // Sitting at the prompt for two polls before the refusal is always seen.
    let start = 0
    for (const phase of timeline.phases) {
      const missed = phase.is === "idle" && phase.forMs > 2 * timings.readyPoll &&
        start + 2 * timings.readyPoll < last.at
      assert.isFalse(
        missed,
        `refused (${reason}) at ${last.at} though the shell sat at its prompt from ${start} for ${phase.forMs} ms`
      )
      start += phase.forMs
    }
  })

/** Ready as soon as asked: what the property must catch. */
const eager: typeof awaitReady = (_pane, look) =>
  Effect.map(look, (state) => ({ state, shell: state.pane_current_command }))

describe("awaitReady over generated timelines", () => {
  it.effect.prop(
    "declares readiness only at the prompt, refuses only for what the pane shows, never misses a prompt",
    [Timeline],
    ([timeline]) => readyOnlyAtThePrompt(awaitReady)(timeline),
    { arbitrary: { runs: 100 } }
  )

  it.effect("the property catches a readiness that does not wait for the prompt", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* checkProperty(Timeline, readyOnlyAtThePrompt(eager), 100), "Falsified")
    }))
})
