/**
 * The hold/claim/collect/abandon protocol of run_shell_command under TestClock: two server
 * instances share one pane whose claim, run records and shell are modelled as tmux and the shell
 * keep them (the claim taken with -o in the typing list, released by the run's trailer, a C-c'd run
 * never reporting), and each new command waits for the pane through the real decision
 * (`claimStep`). For any interleaving of new commands, timeouts, cancels, finishes, a C-c in the
 * pane, restarts and deaths of instances: no command is typed twice or into a busy shell, no run is
 * lost (its status is returned, or its record stays for resume, or it was C-c'd and reported with
 * no status), and no call is refused naming a run that had finished.
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schema from "effect/Schema"
import { TestClock } from "effect/testing"
import { type ClaimMemory, claimStep, freshMemory } from "../../src/domain/paneTurn.ts"
import { timings } from "../../src/programs/runWatch.ts"
import { checkProperty } from "../support/property.ts"

const Time = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 3_000 }))
const Event = Schema.Struct({
  /** In steps of 50 ms, so that calls often coincide. */
  at: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 60 })),
  instance: Schema.Literals([0, 1]),
  what: Schema.Literals(["command", "command", "command", "cancel", "interrupt", "restart", "death"]),
  /** How long a command runs. */
  duration: Time,
  timeout: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 3_000 }))
})
const Script = Schema.Array(Event).check(Schema.isMaxLength(10))
type Script = typeof Script.Type

interface Recorded {
  readonly pid: number
  ended: boolean
  status: number | undefined
}

/** A pane as tmux and its shell keep it, and what each run's calls saw. */
const makeWorld = () => ({
  panePid: 100,
  claim: "",
  successors: new Set<string>(),
  records: new Map<string, Recorded>(),
  last: "",
  /** The run the shell executes now, and its finish (a fiber of the trailer). */
  running: undefined as { readonly id: string; readonly finish: Fiber.Fiber<void> } | undefined,
  idle: true,
  typed: new Map<string, number>(),
  finishedAt: new Map<string, number>(),
  interrupted: new Set<string>(),
  returned: new Map<string, number | null>(),
  violations: [] as Array<string>
})
type World = ReturnType<typeof makeWorld>

const now = Effect.clockWith((clock) => clock.currentTimeMillis)
let nextId = 0

/** The protocol as built, or a broken variant the property must catch. */
interface Protocol {
  readonly step: typeof claimStep
  /** The typing list's claim is taken with -o: tmux refuses it while another run holds the pane. */
  readonly claimOnce: boolean
  /** The run's trailer releases the claim. */
  readonly trailerReleases: boolean
}
const asBuilt: Protocol = { step: claimStep, claimOnce: true, trailerReleases: true }

/** One run_shell_command call of a new command: waits for the pane, types, waits for the run. */
const newCommand = (world: World, protocol: Protocol, held: Set<string>, duration: number, timeout: number) =>
  Effect.gen(function*() {
    const id = (nextId++).toString(16).padStart(6, "0")
    const deadline = (yield* now) + timeout
    let memory: ClaimMemory = freshMemory
    while (true) {
      const t = yield* now
      const record = world.claim === "" ? undefined : world.records.get(world.claim)
      const decided = protocol.step(
        {
          claim: world.claim,
          pending: record !== undefined && !record.ended,
          recordedPid: record?.pid,
          panePid: world.panePid,
          idle: world.idle
        },
        memory,
        t,
        deadline,
        timings.idleAfter
      )
      memory = decided.memory
      if (decided.step === "Refuse") {
        if (world.finishedAt.has(world.claim)) world.violations.push(`refused naming finished run ${world.claim}`)
        return
      }
      if (decided.step === "Wait") {
        yield* Effect.sleep(Math.max(1, Math.min(timings.watchPoll, deadline - t)))
        continue
      }
      if (decided.step === "Release") {
        // The caller that takes the successor option releases the claim, with C-c.
        if (!world.successors.has(world.claim)) {
          world.successors.add(world.claim)
          const released = world.claim
          world.claim = ""
          yield* interruptShell(world)
          world.returned.set(released, world.records.get(released)?.status ?? null)
          world.records.delete(released)
        }
        continue
      }
      if (decided.step === "LookAgain") continue
      // The typing list comes a moment after the look; tmux runs it whole: the claim with -o, then the paste.
      yield* Effect.sleep(10)
      if (protocol.claimOnce && world.claim !== "") continue
      if (!world.idle) world.violations.push(`${id} typed into a busy shell`)
      world.typed.set(id, (world.typed.get(id) ?? 0) + 1)
      if ((world.typed.get(id) ?? 0) > 1) world.violations.push(`${id} typed twice`)
      // The earlier run of the pane, reported and collected when its status report came.
      const earlier = world.records.get(world.last)
      if (earlier?.ended === true) {
        world.returned.set(world.last, earlier.status ?? null)
        world.records.delete(world.last)
      }
      world.claim = id
      world.last = id
      world.records.set(id, { pid: world.panePid, ended: false, status: undefined })
      world.idle = false
      const finish = yield* Effect.forkDetach(Effect.andThen(Effect.sleep(duration), trailer(world, protocol, id)))
      world.running = { id, finish }
      break
    }
    // Waiting for the run: collected when it reports in time, held otherwise.
    while ((yield* now) < deadline) {
      const record = world.records.get(id)
      if (record === undefined) return
      if (record.ended) {
        world.returned.set(id, record.status ?? null)
        world.records.delete(id)
        return
      }
      yield* Effect.sleep(Math.max(1, Math.min(timings.watchPoll, deadline - (yield* now))))
    }
    held.add(id)
  }).pipe(Effect.onInterrupt(() => Effect.void))

/** The run's trailer: its end record and status, the claim released, the shell back at its prompt. */
const trailer = (world: World, protocol: Protocol, id: string) =>
  Effect.gen(function*() {
    const record = world.records.get(id)
    if (record !== undefined) {
      record.ended = true
      record.status = 0
    }
    world.finishedAt.set(id, yield* now)
    if (protocol.trailerReleases) world.claim = ""
    world.running = undefined
    world.idle = true
  })

/** C-c in the pane: the rest of the typed line, the trailer included, never runs. */
const interruptShell = (world: World) =>
  Effect.gen(function*() {
    const running = world.running
    if (running === undefined) return
    world.interrupted.add(running.id)
    world.running = undefined
    world.idle = true
    yield* Fiber.interrupt(running.finish)
  })

const protocolHolds = (protocol: Protocol) => (script: Script) =>
  Effect.gen(function*() {
    const world = makeWorld()
    const memories = [new Set<string>(), new Set<string>()]
    const dead = [false, false]
    const calls: Array<Array<Fiber.Fiber<void>>> = [[], []]
    let clock = 0
    for (const event of [...script].sort((a, b) => a.at - b.at)) {
      yield* TestClock.adjust(event.at * 50 - clock)
      clock = event.at * 50
      const instance = event.instance
      switch (event.what) {
        case "command":
          if (!dead[instance]) {
            calls[instance]!.push(
              yield* Effect.forkChild(newCommand(world, protocol, memories[instance]!, event.duration, event.timeout))
            )
          }
          break
        case "cancel": {
          const last = calls[instance]!.at(-1)
          if (last !== undefined) yield* Fiber.interrupt(last)
          break
        }
        case "interrupt":
          yield* interruptShell(world)
          break
        case "restart":
        case "death":
          for (const call of calls[instance]!) yield* Fiber.interrupt(call)
          memories[instance]!.clear()
          dead[instance] = event.what === "death"
          break
      }
    }
    yield* TestClock.adjust(20_000)
    for (const call of [...calls[0]!, ...calls[1]!]) yield* Fiber.await(call)
    assert.deepStrictEqual(world.violations, [])
    for (const id of world.typed.keys()) {
      const kept = world.records.has(id)
      const returned = world.returned.get(id)
      if (world.finishedAt.has(id)) {
        // Finished: its status went to a call, or its record is still there for resume.
        assert.isTrue(returned === 0 || world.records.get(id)?.ended === true, `finished run ${id} lost`)
      } else {
        assert.isTrue(
          world.interrupted.has(id) && (kept || returned === null),
          `run ${id} neither finished nor C-c'd, or lost`
        )
      }
    }
  })

/**
 * The defect the claim in tmux fixed: the claim is released by the call that collects the run, not
 * by its trailer, and a claim is waited on while its run is recorded, finished or not, whatever
 * the shell does.
 */
const releasedByCollector: Protocol = {
  step: (seen, memory, t, deadline, idleAfter) =>
    claimStep(
      { ...seen, pending: seen.pending || seen.recordedPid !== undefined, idle: false },
      memory,
      t,
      deadline,
      idleAfter
    ),
  claimOnce: true,
  trailerReleases: false
}

/** Typing without the claim's -o: two calls that both found the pane free both type. */
const unclaimedTyping: Protocol = { ...asBuilt, claimOnce: false }

describe("the pane's turn over generated interleavings", () => {
  it.effect.prop("types each command once into an idle shell, loses no run, blocks no pane after its run", [Script], ([
    script
  ]) => protocolHolds(asBuilt)(script), { arbitrary: { runs: 200 } })

  it.effect("the property catches a finished run that holds its pane until it is collected", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* checkProperty(Script, protocolHolds(releasedByCollector), 300), "Falsified")
    }))

  it.effect("the property catches typing without the claim", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* checkProperty(Script, protocolHolds(unclaimedTyping), 300), "Falsified")
    }))
})

describe("a claim whose shell an exec replaced", () => {
  it("is released at once, though the new program is busy or reads its terminal as a read would", () => {
    const seen = { claim: "abc123", pending: true, recordedPid: 40, panePid: 40, idle: false }
    assert.strictEqual(claimStep({ ...seen, replaced: true }, freshMemory, 0, 10_000, 300).step, "Release")
    assert.strictEqual(claimStep(seen, freshMemory, 0, 10_000, 300).step, "Wait")
  })
})
