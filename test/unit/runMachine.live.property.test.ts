/**
 * The live run programs (programs/runTyping.ts `startRun`, runAwait.ts `resumeRun`, runAnswer.ts
 * `answerRun`) over generated interleavings, against one fake pane with a shell and tmux 3.3a's
 * `wait-for` (test/support/fakeShellPane.ts), under the test clock: two server instances type,
 * wait, time out, are cancelled, restart or die (their waiting clients left orphaned), resume and
 * answer held runs; the pane gets C-c and respawns; the tmux server dies mid-wait; every tmux
 * client a call starts may be killed at any boundary of its command list. What tmux saw happen
 * to each run (typed, signalled, interrupted, released, collected, abandoned, withdrawn) is fed to
 * the machine's own `step` (src/domain/runMachine.ts): each must be a move `step` has from where
 * the run is, and after every tick the pane's options must be those of the state `step` says.
 * Three broken transitions, made in the machine's command lists the programs run, are each caught.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import { vi } from "vitest"
import type { PaneId } from "../../src/domain/ids.ts"
import { paneRunOptions, protocolNames } from "../../src/domain/protocolNames.ts"
import type * as RunCommands from "../../src/domain/runCommands.ts"
import { type RunEvent, type RunState, step } from "../../src/domain/runMachine.ts"
import { decodeRecord } from "../../src/domain/runRecord.ts"
import * as ShellRunsLive from "../../src/layers/ShellRunsLive.ts"
import { answerRun } from "../../src/programs/runAnswer.ts"
import { resumeRun } from "../../src/programs/runAwait.ts"
import { startRun } from "../../src/programs/runTyping.ts"
import { Config } from "../../src/services/Config.ts"
import { PaneProcess } from "../../src/services/PaneProcess.ts"
import { ServerPane } from "../../src/services/ServerPane.ts"
import { ShellRuns } from "../../src/services/ShellRuns.ts"
import { SocketPin } from "../../src/services/SocketPin.ts"
import { makeAuthorities } from "../../src/services/Tmux.ts"
import { testConfig } from "../support/config.ts"
import { invoke, killPoints, makeShellPane, type ShellPane, tickMs } from "../support/fakeShellPane.ts"
import { fakeSocketPin } from "../support/fakeTmux.ts"
import { checkProperty } from "../support/property.ts"
import { longRounds } from "../support/rounds.ts"

/** The broken transition the programs run, when a test asks for one. */
type Mutant = "none" | "abandon-without-signal" | "collect-unguarded" | "withdraw-keeps-record"
const mutation = vi.hoisted(() => ({ current: "none" as string }))
vi.mock("../../src/domain/runCommands.ts", async (importOriginal) => {
  const actual = await importOriginal<typeof RunCommands>()
  return {
    ...actual,
    abandon: (...args: Parameters<typeof actual.abandon>) => {
      const commands = actual.abandon(...args)
      return mutation.current === "abandon-without-signal"
        ? commands.filter((command) => command[0] !== "wait-for")
        : commands
    },
    collect: (...args: Parameters<typeof actual.collect>) => {
      const commands = actual.collect(...args)
      return mutation.current === "collect-unguarded" ? commands.slice(1) : commands
    },
    withdraw: (...args: Parameters<typeof actual.withdraw>) => {
      const commands = actual.withdraw(...args)
      const record = paneRunOptions.record(args[0].id)
      return mutation.current === "withdraw-keeps-record"
        ? commands.filter((command) => command.at(-1) !== record)
        : commands
    }
  }
})

const paneId = "%0" as PaneId
const Action = Schema.Struct({
  /** In ticks of the clock (fakeShellPane.ts `tickMs`). */
  at: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 60 })),
  instance: Schema.Literals([0, 1]),
  what: Schema.Literals([
    "command",
    "command",
    "command",
    "resume",
    "answer",
    "cancel",
    "interrupt",
    "respawn",
    "restart",
    "death",
    "server-death"
  ]),
  duration: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 60 })),
  status: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 3 })),
  timeout: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 })),
  /** Ticks each tmux client takes to start: another call may act in between. */
  latency: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 3 })),
  /** The call's client killed at this invocation, at this one of its `killPoints` (none: never). */
  kill: Schema.optionalKey(Schema.Struct({
    invocation: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 8 })),
    point: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 3 }))
  }))
})
type Action = typeof Action.Type
const Script = Schema.Array(Action).check(Schema.isMaxLength(10))
type Script = ReadonlyArray<Action>
/** Both instances' calls crowded into a few ticks with C-c's and cancels: where calls race for one run. */
const Crowded = Schema.Array(Schema.Struct({
  ...Action.fields,
  at: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 8 })),
  what: Schema.Literals(["command", "command", "command", "interrupt", "cancel", "resume"])
})).check(Schema.isMaxLength(10))

/** A Typed move's typing, for the move's next state (the observer needs no list). */
const untyped = {
  generation: 0,
  view: { panePid: 0, cursorX: 0, width: 0, height: 0, generation: "" },
  templates: { end: "" },
  record: "",
  bufferTag: "",
  keepPane: false
}

const limits = { maxLines: 1000, maxBytes: 256 * 1024, countUntil: Number.MAX_SAFE_INTEGER }
const now = Effect.clockWith((clock) => clock.currentTimeMillis)

/** One server instance: its run registry, its calls, and whether it died (its clients live on). */
interface Instance {
  runs: ShellRuns["Service"]
  readonly calls: Array<Fiber.Fiber<unknown, unknown>>
  dead: boolean
}

/** The services a call of `instance` runs on, its tmux clients killed as `kill` says. */
const services = (pane: ShellPane, instance: Instance, action: Action) => {
  let invocations = 0
  const run = (commands: ReadonlyArray<ReadonlyArray<string>>, options: { readonly input?: string }) =>
    Effect.andThen(
      // A tmux client takes time to start: at least a millisecond, so that no loop of calls stops the clock.
      Effect.sleep(action.latency * tickMs + 1),
      Effect.suspend(() => {
        const at = invocations++
        const killAt = action.kill?.invocation === at ? killPoints(commands)[action.kill.point] : undefined
        return invoke(pane, commands, options.input, killAt, () => instance.dead)
      })
    )
  const authorities = makeAuthorities({
    run,
    spawn: run,
    create: () => Effect.die(new Error("no server is started here"))
  })
  return <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    effect.pipe(
      Effect.provideContext(authorities),
      Effect.provideService(ShellRuns, instance.runs),
      Effect.provideService(SocketPin, fakeSocketPin),
      Effect.provideService(ServerPane, { panes: Effect.succeed([]), oneAtATime: (effect) => effect }),
      Effect.provideService(
        Config,
        {
          config: testConfig(),
          version: "test",
          tmuxPath: "/usr/bin/tmux"
        } as Config["Service"]
      ),
      Effect.provideService(
        PaneProcess,
        {
          shell: (pid: number) => Effect.sync(() => pane.shell(pid)),
          front: (pid: number) => Effect.sync(() => pane.front(pid)),
          terminalMode: () => Effect.succeed({ icanon: true, echo: true }),
          environment: () => Effect.succeed(undefined),
          exitOf: () => Effect.succeed(undefined)
        } as unknown as PaneProcess["Service"]
      )
    ) as Effect.Effect<A, E, never>
}

/** A held run as its record on the pane says (what `resume` reads), if one is recorded. */
const recordedRun = (pane: ShellPane) => {
  for (const [name, value] of pane.options) {
    if (name.startsWith(paneRunOptions.record(""))) {
      const record = decodeRecord(value)
      if (record !== undefined) return record.run
    }
  }
  return undefined
}

const simulate = (script: Script) =>
  Effect.gen(function*() {
    const violations: Array<string> = []
    const pane = makeShellPane(paneId)
    const fresh = (): Instance => ({ runs: ShellRunsLive.make().service, calls: [], dead: false })
    const instances = [fresh(), fresh()]
    const states = new Map<string, RunState>()
    const statusOf = new Map<string, number>()
    const marks = new Map<string, Array<number | null>>()
    const abandoned = new Set<string>()
    const attempted = new Set<string>()
    let read = 0

    const pasted = new Set<string>()
    const move = (runId: string, event: RunEvent) => {
      if (
        !pasted.has(runId) && ["Released", "Collected", "Abandoned"].includes(event._tag) &&
        (states.get(runId) ?? { _tag: "Free" })._tag === "Free"
      ) {
        // A typing list that took the claim and was refused after it, its caller gone before it
        // withdrew: on the pane it is a run whose trailer can never run, and is settled as one.
        states.set(runId, { _tag: "Stranded", run: { id: runId, paneId } })
      }
      const state = states.get(runId) ?? { _tag: "Free" }
      const moved = step(state, event)
      if (moved === undefined) violations.push(`run ${runId}: tmux made ${event._tag}, no move from ${state._tag}`)
      else states.set(runId, moved.next)
    }
    const collection = (status: number | null) =>
      ({ status, ended: status === null ? "unreported" : "reported", collector: "t", at: 0 }) as const
    /** What tmux did since the last look, as the machine's events. */
    const observe = () => {
      for (const seen of pane.seen.slice(read)) {
        switch (seen._tag) {
          case "Pasted":
            if (seen.busy) violations.push(`${seen.runId} typed into a busy shell`)
            pasted.add(seen.runId)
            // Its next state only: the list it yields is the one the program ran (tmux says it reached the paste).
            move(seen.runId, { _tag: "Typed", run: { id: seen.runId, paneId }, typing: untyped })
            break
          case "Signalled":
            statusOf.set(seen.runId, seen.status)
            move(seen.runId, { _tag: "Signalled", status: seen.status })
            break
          case "Interrupted":
            move(seen.runId, { _tag: "Interrupted" })
            break
          case "Released":
            move(seen.runId, { _tag: "Released", successor: "x" })
            break
          case "Withdrawn":
            attempted.add(seen.runId)
            if (seen.recordLeft) violations.push(`withdrawn ${seen.runId} left its record`)
            move(seen.runId, { _tag: "Withdrawn", run: { id: seen.runId, paneId }, bufferTag: "t" })
            break
          case "Marked": {
            const status = seen.status
            marks.set(seen.runId, [...marks.get(seen.runId) ?? [], status])
            // An abandonment releases the run's claim in the list that collects it; a collection does not.
            const release = `#{?#{==:#{${paneRunOptions.claim}},${seen.runId}},`
            const abandoning = seen.list.some((command) =>
              command[0] === "set-option" && (command.at(-1) ?? "").startsWith(release)
            )
            if (abandoning) abandoned.add(seen.runId)
            move(seen.runId, { _tag: abandoning ? "Abandoned" : "Collected", collection: collection(status) })
            break
          }
          case "ServerDied":
            for (const runId of states.keys()) move(runId, { _tag: "ServerDied" })
            break
        }
      }
      read = pane.seen.length
      // The pane's options are those of the state the machine says each run is in.
      const claim = pane.options.get(paneRunOptions.claim) ?? ""
      for (const [runId, state] of states) {
        const recorded = pane.options.has(paneRunOptions.record(runId))
        const names = protocolNames(runId)
        // A list refused before its paste leaves what it set until its withdrawal: looked at at the end.
        if (state._tag === "Free" && !pasted.has(runId)) continue
        if (state._tag === "Collected" || state._tag === "Free") {
          const left = [paneRunOptions.record(runId), names.template, names.end, names.typed]
            .filter((name) => pane.options.has(name))
          if (left.length > 0 || claim === runId) violations.push(`${state._tag} ${runId} left ${left} ${claim}`)
        } else if (!recorded) violations.push(`${state._tag} ${runId} has no record`)
        else if (state._tag === "Ended" && !pane.options.has(names.end)) violations.push(`ended ${runId}: no end`)
        else if ((state._tag === "Released" || state._tag === "Ended") && claim === runId) {
          violations.push(`${state._tag} ${runId} still holds the claim`)
        } else if (state._tag === "Running" && claim !== runId) violations.push(`running ${runId} lost its claim`)
      }
    }

    const launch = (instance: Instance, action: Action, work: Effect.Effect<unknown, unknown, never>) =>
      Effect.map(
        Effect.forkChild(Effect.exit(work), { startImmediately: true }),
        (fiber) => void instance.calls.push(fiber)
      )
    const call = (instance: Instance, action: Action) => {
      const provide = services(pane, instance, action)
      return Effect.gen(function*() {
        const deadline = (yield* now) + action.timeout * tickMs
        if (action.what === "command") {
          return yield* provide(startRun({
            paneId,
            command: `work ${action.duration} ${action.status}`,
            inShell: false,
            suppressHistory: false,
            deadline,
            limits
          }))
        }
        const held = recordedRun(pane)
        if (held === undefined) return
        if (action.what === "answer") yield* provide(answerRun(held, { _tag: "Text", text: "y", enter: true }))
        return yield* provide(resumeRun(held, deadline, limits))
      })
    }
    const stop = (instance: Instance) =>
      Effect.gen(function*() {
        for (const fiber of instance.calls.splice(0)) yield* Fiber.interrupt(fiber)
        instance.runs = ShellRunsLive.make().service
      })

    const act = (action: Action) =>
      Effect.gen(function*() {
        const instance = instances[action.instance]!
        switch (action.what) {
          case "command":
          case "resume":
          case "answer":
            return yield* launch(instance, action, call(instance, action))
          case "cancel": {
            const last = instance.calls.pop()
            if (last !== undefined) yield* Fiber.interrupt(last)
            return
          }
          case "interrupt":
            return void pane.start([["send-keys", "-t", paneId, "C-c"]])
          case "respawn":
            return pane.respawn()
          case "restart":
            return yield* stop(instance)
          case "death":
            instance.dead = true
            yield* stop(instance)
            instance.dead = false
            return
          case "server-death":
            return pane.serverDeath()
        }
      })

    const busy = () => instances.some((instance) => instance.calls.some((fiber) => fiber.pollUnsafe() === undefined))
    const drive = (until: number) =>
      Effect.gen(function*() {
        for (let tick = 0; tick < until && busy(); tick++) {
          yield* TestClock.adjust(tickMs)
          pane.tick(yield* now)
          observe()
        }
      })

    const actions = [...script].sort((a, b) => a.at - b.at)
    for (let tick = 0; tick <= 60; tick++) {
      for (const action of actions.filter((a) => a.at === tick)) yield* act(action)
      yield* TestClock.adjust(tickMs)
      pane.tick(yield* now)
      observe()
    }
    yield* drive(400)
    // What is left is settled from a live instance, as the next calls would: a command (which
    // releases and collects the runs before it), then a resume of any run still recorded.
    for (let round = 0; round < 3; round++) {
      const claimed = (pane.options.get(paneRunOptions.claim) ?? "") !== ""
      const what = round === 0 || claimed ? "command" : recordedRun(pane) === undefined ? undefined : "resume"
      if (what === undefined) break
      const settler: Action = { at: 0, instance: 0, what, duration: 0, status: 0, timeout: 300, latency: 0 }
      const instance = fresh()
      instances.push(instance)
      yield* launch(instance, settler, call(instance, settler))
      yield* drive(400)
    }
    observe()

    for (const [runId, state] of states) {
      const written = marks.get(runId) ?? []
      if (state._tag === "Collected") {
        if (written.length !== 1) violations.push(`run ${runId} collected ${written.length} times`)
        else if (written[0] !== (statusOf.get(runId) ?? null)) {
          violations.push(`run ${runId} collected with ${written[0]}, its trailer said ${statusOf.get(runId)}`)
        }
      } else if (state._tag !== "Free") violations.push(`run ${runId} left ${state._tag}`)
      const channel = protocolNames(runId).channel
      if (abandoned.has(runId) && pane.server.waiters(channel) > 0) violations.push(`abandoned ${runId} left a waiter`)
      if (pane.server.isWoken(channel)) violations.push(`collected ${runId} left its channel woken`)
    }
    for (const runId of attempted) {
      const names = protocolNames(runId)
      const left = [paneRunOptions.record(runId), names.template, names.markTemplate].filter((name) =>
        pane.options.has(name)
      )
      if (!pasted.has(runId) && left.length > 0) violations.push(`withdrawn ${runId} left ${left}`)
    }
    if ((pane.options.get(paneRunOptions.claim) ?? "") !== "") {
      violations.push(`the claim is left to ${pane.options.get(paneRunOptions.claim)}`)
    }
    return [...new Set(violations)]
  })

const holds = (script: Script) =>
  Effect.gen(function*() {
    const violations = yield* simulate(script)
    assert.deepStrictEqual(violations, [], violations.join("; "))
  })

/** The violations `script` shows with `mutant`'s broken transition in the lists the programs run. */
const violationsWith = (mutant: Mutant, script: Script) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      mutation.current = mutant
    }),
    () => simulate(script).pipe(Effect.provide(TestClock.layer())),
    () =>
      Effect.sync(() => {
        mutation.current = "none"
      })
  )

/** With a broken transition: whether the property fails for one of `runs` drawn scripts. */
const caught = (mutant: Mutant, runs: number) =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      mutation.current = mutant
    }),
    () => checkProperty(Crowded, holds, runs),
    () =>
      Effect.sync(() => {
        mutation.current = "none"
      })
  )

/**
 * For each broken transition, a script the property fails on with it and holds on without it: the
 * drawn search found these (shrunk). A search draws the withdrawal's case once in about 1,200
 * scripts, so a drawn search of 2,000 missed it about one run in five (CI saw it miss).
 */
const quiet = { duration: 0, status: 0, timeout: 1, latency: 0 }
const witnesses: ReadonlyArray<readonly [Exclude<Mutant, "none">, Script]> = [
  ["abandon-without-signal", [
    { ...quiet, at: 0, instance: 1, what: "command", duration: 9, timeout: 71 },
    { ...quiet, at: 1, instance: 1, what: "interrupt" }
  ]],
  ["collect-unguarded", [
    { ...quiet, at: 6, instance: 1, what: "command", duration: 2, timeout: 2 },
    { ...quiet, at: 8, instance: 1, what: "command" }
  ]],
  ["withdraw-keeps-record", [
    { ...quiet, at: 0, instance: 0, what: "command", duration: 6, timeout: 43 },
    { ...quiet, at: 1, instance: 0, what: "command", timeout: 57 },
    { ...quiet, at: 5, instance: 1, what: "interrupt" }
  ]]
]

describe("the live run programs over generated interleavings, against tmux 3.3a's wait-for", () => {
  it.effect.prop(
    "each thing tmux did to a run is a move of step, and the pane is as step says",
    [Script],
    ([s]) => holds(s),
    { arbitrary: { runs: 100 } }
  )

  it.effect.prop("holds with both instances' calls crowded together", [Crowded], ([s]) => holds(s), {
    arbitrary: { runs: 100 },
    timeout: 120_000
  })

  // Issue 36's crowded finding (CI seed 646515721249315), each client taking a tick to start: the cancel's and
  // the resume's calls both abandoned the run, and the second's signal, sent before its guard refused, found
  // no waiter and left the channel woken. abandon's list now refuses before it signals.
  it.effect("a crowded cancel, resume and C-c leave no collected run's channel woken", () => {
    const base = { duration: 0, status: 0, timeout: 1, latency: 1 }
    return holds([
      { ...base, at: 0, instance: 1, what: "command", duration: 22, timeout: 95 },
      { ...base, at: 1, instance: 1, what: "command" },
      { ...base, at: 3, instance: 1, what: "cancel" },
      { ...base, at: 5, instance: 1, what: "resume", timeout: 100 },
      { ...base, at: 5, instance: 0, what: "interrupt" }
    ])
  }, 120_000)

  // `npm run test:long` also searches drawn scripts for each, enough to find the rarest nearly every time (a
  // falsified run is slow: its calls wait out their timeouts).
  for (const [mutant, script] of witnesses) {
    it.effect(`catches ${mutant}`, () =>
      Effect.gen(function*() {
        assert.deepStrictEqual(yield* violationsWith("none", script), [])
        assert.isAbove((yield* violationsWith(mutant, script)).length, 0)
        if (longRounds) assert.strictEqual(yield* caught(mutant, 10_000), "Falsified")
      }), longRounds ? 1_200_000 : 120_000)
  }
})
