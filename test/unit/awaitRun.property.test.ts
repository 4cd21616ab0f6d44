/**
 * run_shell_command's wait for a typed run, under TestClock, against a scripted pane: the run
 * records its end at some time (or never), the shell may come back to its prompt without running
 * it, a program may block reading the terminal, the pane's process may exit; the deadline is drawn
 * too. Whatever the timeline: a timed-out or blocked run is held with its templates, records and
 * channel untouched (what `resume` needs) and nothing is typed; a withdrawn run (never run, or its
 * shell gone) leaves no option and no waiter behind and is forgotten; a finished run is forgotten.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import type { PaneId } from "../../src/domain/ids.ts"
import { protocolNames } from "../../src/domain/protocolNames.ts"
import { awaitRun } from "../../src/programs/runAwait.ts"
import { timings } from "../../src/programs/runWatch.ts"
import { PaneProcess } from "../../src/services/PaneProcess.ts"
import { ServerPane } from "../../src/services/ServerPane.ts"
import { type Run, ShellRuns } from "../../src/services/ShellRuns.ts"
import { SocketPin } from "../../src/services/SocketPin.ts"
import { PaneCommand, TmuxObserve } from "../../src/services/Tmux.ts"
import { checkProperty } from "../support/property.ts"
import { type Script, scriptedCommand, scriptedObserve } from "../support/scriptedTmux.ts"

const Time = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 4_000 }))
const Timeline = Schema.Struct({
  /** When the trailer records the end and signals (absent: never). */
  recordedAt: Schema.optionalKey(Time),
  /** When something else happens to the run instead, if ever. */
  otherwise: Schema.optionalKey(
    Schema.Struct({ at: Time, what: Schema.Literals(["back at the prompt", "reads the terminal", "shell exited"]) })
  ),
  deadline: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 5_000 })),
  fresh: Schema.Boolean
})
type Timeline = typeof Timeline.Type

const run: Run = {
  id: "a1b2c3",
  paneId: "%1" as PaneId,
  panePid: 10,
  tty: "/dev/pts/1",
  shell: "bash",
  promptRow: 0,
  trailer: "lmcp_a1b2c3",
  markStart: false,
  prompt: "$ ",
  typedStart: "( true",
  echoRows: 3,
  screenRows: 24
}
const limits = { maxLines: 1000, maxBytes: 256 * 1024, countUntil: Number.MAX_SAFE_INTEGER }
const names = protocolNames(run.id)

const now = Effect.clockWith((clock) => clock.currentTimeMillis)

/** The pane, the run registry and the kernel as the timeline says, recording what was run and held. */
const scripted = (timeline: Timeline) => {
  const commands: Array<ReadonlyArray<string>> = []
  const registry: Array<string> = []
  const at = (t: number, event: number | undefined) => event !== undefined && t >= event
  const other = (t: number, what: string) => timeline.otherwise?.what === what && at(t, timeline.otherwise.at)
  // The run's end record, its start mark, where it was typed, its record in tmux, the pane's collected
  // marks (none) and claim (none), then history size, cursor, alternate screen, dead, the pane's pid, command.
  const head = (t: number) =>
    `${at(t, timeline.recordedAt) ? "0 2 2 0" : ""}||0 0 2 2000|recorded|||0|2|2|0|` +
    `${other(t, "shell exited") ? 1 : 0}|10|bash\n`
  const answer = (t: number) => (command: ReadonlyArray<string>): string => {
    commands.push(command)
    if (command[0] === "capture-pane") return `$ ${run.trailer}\nout\n$ \n`
    if (command[0] !== "display-message") return ""
    const format = command.at(-1)!
    if (!format.startsWith("#{")) return `${format}\n`
    // No open input is recorded (a resume reads it: openInput.ts).
    if (format.includes("@lmcp_open")) {
      return `${format.replace("#{pane_id}", run.paneId).replace("#{@lmcp_open}", "")}\n`
    }
    return format === "#{history_size}" ? "0\n" : head(t)
  }
  const script: Script = (list) => Effect.map(now, (t) => list.map(answer(t)).join(""))
  const idle = { comm: "bash", inForeground: true, reading: true, foreground: "bash", foregroundGroup: 10, ageMs: 0 }
  const busy = { ...idle, reading: false, inForeground: false, foreground: "sleep", foregroundGroup: 20 }
  const provide = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(
      Effect.provideService(PaneCommand, scriptedCommand(script)),
      Effect.provideService(TmuxObserve, scriptedObserve(script)),
      Effect.provideService(
        SocketPin,
        { resolvedPath: "/test/socket", selector: { form: "name", name: "test" } } as SocketPin["Service"]
      ),
      Effect.provideService(ServerPane, { panes: Effect.succeed([]), oneAtATime: (effect) => effect }),
      Effect.provideService(
        ShellRuns,
        {
          hold: (held) => Effect.sync(() => void registry.push(`hold ${held.id}`)),
          collect: (collected) => Effect.sync(() => void registry.push(`collect ${collected.id}`))
        } as ShellRuns["Service"]
      ),
      Effect.provideService(
        PaneProcess,
        {
          shell: () =>
            Effect.map(now, (t) => other(t, "shell exited") ? undefined : other(t, "back at the prompt") ? idle : busy),
          front: () =>
            Effect.map(now, (t) => ({
              pid: 30,
              program: "vim",
              programIsShell: false,
              wakes: false,
              wait: other(t, "reads the terminal") ? "reads" as const : "elsewhere" as const
            })),
          terminalMode: () => Effect.succeed({ icanon: false, echo: false }),
          environment: () => Effect.succeed(undefined),
          exitOf: () => Effect.succeed(undefined)
        } as PaneProcess["Service"]
      )
    )
  // The invocation blocked on the run's channel: it returns the read once the trailer signals.
  const waiter = timeline.recordedAt === undefined
    ? Effect.never
    : Effect.andThen(
      Effect.sleep(timeline.recordedAt),
      Effect.map(now, (t) => `${head(t)}lmcp-sep-a1b2c3\n$ \nlmcp-sep-a1b2c3\n$ \n`)
    )
  return { commands, registry, provide, waiter }
}

const typed = (command: ReadonlyArray<string>) => ["send-keys", "paste-buffer", "load-buffer"].includes(command[0]!)
const releases = (command: ReadonlyArray<string>) =>
  (command[0] === "set-option" && command.includes("-pu")) || (command[0] === "wait-for" && command.includes("-S"))

type Needs = PaneCommand | TmuxObserve | ShellRuns | PaneProcess | SocketPin | ServerPane
type Wait = (
  run: Run,
  waiter: Effect.Effect<string>,
  from: number,
  deadline: number,
  fresh: boolean,
  limits: { readonly maxLines: number; readonly maxBytes: number; readonly countUntil: number }
) => Effect.Effect<{ readonly _tag: string }, { readonly _tag: string }, Needs>

const leavesWhatResumeNeeds = (wait: Wait) => (timeline: Timeline) =>
  Effect.gen(function*() {
    const pane = scripted(timeline)
    const fiber = yield* Effect.forkChild(
      Effect.result(pane.provide(wait(run, pane.waiter, 0, timeline.deadline, timeline.fresh, limits)))
    )
    yield* TestClock.adjust(timeline.deadline + timings.watchPoll)
    assert.isDefined(fiber.pollUnsafe(), "still waiting past the deadline")
    const result = yield* Fiber.join(fiber)
    const outcome = result._tag === "Success" ? result.success._tag : result.failure._tag
    const unset = pane.commands.filter((command) => command[0] === "set-option").map((command) => command.at(-1))
    if (outcome === "TimedOut" || outcome === "Blocked") {
      assert.deepStrictEqual(pane.registry, [`hold ${run.id}`], "held for resume")
      assert.deepStrictEqual(
        pane.commands.filter((command) => releases(command) || typed(command)),
        [],
        "a held run keeps its templates, records and channel; nothing typed"
      )
    } else if (outcome === "Finished") {
      assert.isTrue(at(timeline.recordedAt), "finished without its record")
      assert.deepStrictEqual(pane.registry, [`collect ${run.id}`])
    } else {
      // Withdrawn: never run (RunIncomplete, RunUnreported) or its shell gone (PaneGone).
      assert.include(["RunIncomplete", "RunUnreported", "PaneGone"], outcome, JSON.stringify(result))
      assert.deepStrictEqual(pane.registry, [`collect ${run.id}`], "forgotten")
      assert.includeMembers(
        unset,
        [names.template, names.markTemplate, names.end, names.start],
        "no option left behind"
      )
      assert.isTrue(
        pane.commands.some((command) => command[0] === "wait-for" && command.includes(names.channel)),
        "its waiting client released"
      )
      assert.isTrue(
        pane.commands.filter(typed).every((command) => command.join(" ") === `send-keys -t ${run.paneId} C-c`),
        "only C-c typed"
      )
    }
    function at(time: number | undefined) {
      return time !== undefined && time <= timeline.deadline + timings.watchPoll
    }
  })

/** A wait that unsets the run's record at a timeout: what the property must catch. */
const tidyAtTimeout: Wait = (held, waiter, from, deadline, fresh, bounds) =>
  Effect.gen(function*() {
    const outcome = yield* awaitRun(held, waiter, from, deadline, fresh, bounds)
    if (outcome._tag === "TimedOut") {
      yield* Effect.ignore((yield* PaneCommand).run([["set-option", "-pu", "-t", held.paneId, names.end]]))
    }
    return outcome
  })

describe("awaitRun over generated timelines", () => {
  it.effect.prop(
    "holds a timed-out or blocked run untouched for resume, leaves nothing of a withdrawn one",
    [Timeline],
    ([timeline]) => leavesWhatResumeNeeds(awaitRun)(timeline),
    { arbitrary: { runs: 100 } }
  )

  it.effect("the property catches a wait that tidies away a timed-out run", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* checkProperty(Timeline, leavesWhatResumeNeeds(tidyAtTimeout), 100), "Falsified")
    }))
})
