/**
 * The run machine (src/domain/runMachine.ts) over generated interleavings, against a fake tmux that
 * keeps the pane's options and models tmux 3.3a's `wait-for` (test/support/fakeWaitFor.ts): two server
 * instances type, wait, time out, are cancelled, restart or die (their waiting clients killed, or left
 * orphaned), resume and answer held runs; the pane gets C-c and respawns; the tmux server dies mid-wait.
 * Every collect, abandon, withdraw, release, keep-open and answer list run here is the one `step` yields,
 * and each call may be killed at any of its invocations' boundaries. It holds that:
 * - nothing is typed into a busy shell, and no C-c or answer reaches a run it was not meant for;
 * - each typed run is collected once, with the status its trailer reported (none when it never ran);
 * - an abandoned run leaves no waiter on its channel (its killed waiter is released), no collected run
 *   leaves its channel woken, and no client process waits for ever once an instance's start-up sweep
 *   (platform/Leftovers.ts) released the orphans it sees;
 * - once every run is settled, no run holds the pane.
 * Three broken transitions are each caught (below).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { paneRunOptions, protocolNames } from "../../src/domain/protocolNames.ts"
import { type RunEvent, type RunRef, type RunState, step, type Transition } from "../../src/domain/runMachine.ts"
import { decodeMark } from "../../src/domain/runRecord.ts"
import { setOption } from "../support/fakePane.ts"
import { type FakeClient, makeWaitServer, type Outcome, type WaitServer } from "../support/fakeWaitFor.ts"
import { checkProperty } from "../support/property.ts"

const everything = [
  "command",
  "command",
  "command",
  "resume",
  "answer",
  "keep-open",
  "cancel",
  "interrupt",
  "respawn",
  "restart",
  "death",
  "server-death"
] as const
const actionOf = <const What extends ReadonlyArray<(typeof everything)[number]>>(lastTick: number, what: What) =>
  Schema.Struct({
    /** In ticks (a tick is a few milliseconds of a real pane), so that calls often coincide. */
    at: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: lastTick })),
    instance: Schema.Literals([0, 1]),
    what: Schema.Literals(what),
    duration: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 40 })),
    timeout: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 40 })),
    /** Ticks between a look and the list sent on it: another call may act in between. */
    lag: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 4 })),
    /** The invocation after which this call is killed (its process gone); 9: never. */
    killedAfter: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 9 }))
  })
const Action = actionOf(80, everything)
const Script = Schema.Array(Action).check(Schema.isMaxLength(12))
/** Calls crowded into a few ticks around C-c's: where two callers release one run. */
const Crowded = Schema.Array(actionOf(12, ["command", "command", "interrupt", "cancel"])).check(Schema.isMaxLength(12))
type Script = ReadonlyArray<Action>
type Action = {
  readonly [K in keyof typeof Action.Type]: K extends "what" ? (typeof everything)[number] : (typeof Action.Type)[K]
}

type Step = typeof step

/**
 * The machine's Typed move, for its next state: the simulation types with a list of its own (its
 * shell is a `type-run` command), so the list the move yields is not run here; the live programs'
 * property runs it (runMachine.live.property.test.ts).
 */
const typingOf = (_run: RunRef) => ({
  generation: 0,
  view: { panePid: 0, cursorX: 0, width: 0, height: 0, generation: "" },
  templates: { end: "trailer" },
  record: "record",
  bufferTag: "1.1",
  keepPane: false
})
const pane = "%0"

/** A call's program as a generator: it yields how many ticks to wait, and stops when it returns. */
type Program = Generator<number, void, void>

const simulate = (script: Script, machine: Step) => {
  const violations: Array<string> = []
  const options = new Map<string, string>()
  /** The run the shell executes, when its trailer runs and with which status. */
  let running: { readonly id: string; readonly endsAt: number; readonly status: number } | undefined
  let now = 0
  let nextRun = 0
  /** Per run: its trailer's status once it ran, the marks written for it, and whether it was abandoned. */
  const statusOf = new Map<string, number>()
  const marks = new Map<string, Array<number | null>>()
  const abandoned = new Set<string>()
  /** Per run, how many callers released its claim: one at most (the one that took its successor option). */
  const releases = new Map<string, number>()
  const typed = new Set<string>()
  const held = new Set<string>()
  /** Runs whose open input the pane was kept for. */
  const opened = new Set<string>()
  /** The run a release list is for, while tmux runs it (the C-c it ends with must reach no other). */
  let releasing: string | undefined
  let answering: string | undefined

  const lookup = (name: string): string =>
    name === "pane_in_mode" || name === "synchronize-panes"
      ? "0"
      : name === "pane_current_command"
      ? running === undefined ? "bash" : "prog"
      : options.get(name) ?? ""
  const exec = (command: ReadonlyArray<string>): Outcome => {
    switch (command[0]) {
      case "set-option": {
        const result = setOption(options, command.slice(1), lookup)
        if (result.error !== undefined) return { error: result.error }
        const successor = command.at(-2)
        if (successor?.startsWith(paneRunOptions.successor("")) === true) {
          releasing = successor.slice(-6)
          releases.set(releasing, (releases.get(releasing) ?? 0) + 1)
        }
        const mark = command.at(-2) === paneRunOptions.collected ? decodeMark(command.at(-1)!) : undefined
        if (mark !== undefined) marks.set(mark.runId, [...marks.get(mark.runId) ?? [], mark.status])
        return {}
      }
      case "send-keys":
        if (command.at(-1) === "C-c") {
          if (running !== undefined && running.id !== releasing) {
            violations.push(`C-c for ${releasing} reached run ${running.id}`)
          }
          running = undefined
        } else if (running?.id !== answering) violations.push(`answer for ${answering} reached ${running?.id}`)
        return {}
      case "type-run": {
        // The paste and Enter: the shell starts the run.
        if (running !== undefined) violations.push(`${command[1]} typed while ${running.id} runs`)
        const open = options.get(paneRunOptions.openInput)
        if (open !== undefined && opened.has(open) && options.get(paneRunOptions.claim) === open) {
          violations.push(`${command[1]} typed into the open input of ${open}`)
        }
        running = { id: command[1]!, endsAt: now + Number(command[2]), status: Number(command[3]) }
        typed.add(command[1]!)
        return {}
      }
      default:
        return { out: command[0] === "display-message" ? "head\n" : "" }
    }
  }
  const server: WaitServer = makeWaitServer(exec)

  /** Runs a list whole (tmux runs it without another client's commands in between). */
  const start = (commands: ReadonlyArray<ReadonlyArray<string>>): FakeClient => {
    releasing = undefined
    answering = undefined
    const client = server.start(commands)
    releasing = undefined
    answering = undefined
    return client
  }

  const ref = (id: string): RunRef => ({ id, paneId: pane })
  const carry = (state: RunState, event: RunEvent): Transition => {
    const moved = machine(state, event)
    if (moved === undefined) throw new Error(`no ${event._tag} from ${state._tag}`)
    return moved
  }
  const names = (id: string) => protocolNames(id)
  const collection = (status: number | null, ended: "reported" | "unreported") => ({
    status,
    ended,
    collector: "1.1",
    at: now
  })

  /** Calls in flight: their program, when they next run, their instance and their waiting client. */
  interface Call {
    readonly program: Program
    wakeAt: number
    readonly instance: number
    client: FakeClient | undefined
    invocations: number
    readonly killedAfter: number
    done: boolean
  }
  const calls: Array<Call> = []

  /** One invocation of a call's list; the call is killed after its `killedAfter`th. */
  function* invoke(call: Call, commands: ReadonlyArray<ReadonlyArray<string>>): Generator<number, FakeClient, void> {
    const client = start(commands)
    call.client = client
    if (++call.invocations > call.killedAfter) {
      server.kill(client)
      call.done = true
      yield 0
    }
    return client
  }

  /** Settles a run whose call looked at it: collected, abandoned, or held for resume. */
  function* settle(call: Call, id: string, lag: number): Program {
    yield lag
    const end = options.get(names(id).end)
    if (!options.has(paneRunOptions.record(id))) return
    if (end !== undefined) {
      const status = Number(end.split(" ")[3])
      yield* invoke(
        call,
        carry({ _tag: "Ended", run: ref(id), status }, {
          _tag: "Collected",
          collection: collection(status, "reported")
        }).commands
      )
    } else if (running?.id !== id) {
      // Its trailer can never run (C-c, a respawn): the run is abandoned.
      const client = yield* invoke(
        call,
        carry({ _tag: "Stranded", run: ref(id) }, { _tag: "Abandoned", collection: collection(null, "unreported") })
          .commands
      )
      if (client.state === "done") abandoned.add(id)
    } else {
      carry({ _tag: "Running", run: ref(id) }, { _tag: "Answered" })
      held.add(id)
    }
  }

  /** Waits for the run's channel until `timeout`, then settles it. */
  function* await_(call: Call, id: string, client: FakeClient, timeout: number, lag: number): Program {
    const deadline = now + timeout
    while (now < deadline && (client.state === "waiting")) yield 1
    if (client.state === "waiting") server.kill(client)
    if (client.state === "lost" || client.state === "failed") return
    yield* settle(call, id, lag)
  }

  function* newCommand(call: Call, action: Action): Program {
    const id = (nextRun++).toString(16).padStart(6, "0")
    const run = ref(id)
    yield action.lag
    const claim = options.get(paneRunOptions.claim) ?? ""
    let released: string | undefined
    if (claim !== "") {
      // A claim whose run runs refuses the call; one whose run can no longer report is released.
      if (running?.id === claim || options.has(paneRunOptions.openInput)) return
      yield action.lag
      const release = yield* invoke(
        call,
        carry({ _tag: "Held", run: ref(claim) }, { _tag: "Released", successor: String(call.instance) }).commands
      )
      if (release.state !== "done") return
      released = claim
    }
    // The earlier runs, collected before the typing (as programs/paneClaim.ts `earlierRuns` finds them).
    for (const earlier of new Set([released ?? "", options.get(paneRunOptions.last) ?? ""])) {
      if (earlier === "" || !options.has(paneRunOptions.record(earlier))) continue
      if (options.get(paneRunOptions.claim) === earlier) return
      yield action.lag
      const end = options.get(names(earlier).end)
      const status = end === undefined ? null : Number(end.split(" ")[3])
      yield* invoke(
        call,
        carry(
          status === null ? { _tag: "Released", run: ref(earlier) } : { _tag: "Ended", run: ref(earlier), status },
          { _tag: "Collected", collection: collection(status, status === null ? "unreported" : "reported") }
        ).commands
      )
    }
    yield action.lag
    const typing = yield* invoke(call, [
      ["set-option", "-p", "-t", pane, names(id).template, "trailer"],
      ["set-option", "-p", "-t", pane, paneRunOptions.record(id), "record"],
      ["set-option", "-p", "-o", "-t", pane, paneRunOptions.claim, id],
      ["set-option", "-p", "-t", pane, paneRunOptions.last, id],
      ["type-run", id, String(action.duration), String(action.duration % 3)],
      ["wait-for", names(id).channel],
      ["display-message", "-p", "-t", pane, "head"]
    ])
    if (typing.state === "failed" && typing.error?.startsWith("already set") === true) {
      // Refused before its paste: what the list set goes (the machine's Withdrawn).
      carry({ _tag: "Free" }, { _tag: "Typed", run, typing: typingOf(run) })
      yield* invoke(
        call,
        carry({ _tag: "Free" }, { _tag: "Withdrawn", run, bufferTag: "1.1" }).commands
      )
      return
    }
    carry({ _tag: "Free" }, { _tag: "Typed", run, typing: typingOf(run) })
    yield* await_(call, id, typing, action.timeout, action.lag)
  }

  function* resume(call: Call, action: Action, answer: boolean): Program {
    const id = [...held].find((run) => options.has(paneRunOptions.record(run)))
    if (id === undefined) return
    held.delete(id)
    yield action.lag
    if (options.has(names(id).end) || running?.id !== id) return yield* settle(call, id, 0)
    if (answer) {
      answering = id
      const keys = [["send-keys", "-t", pane, "-l", "y"], ["send-keys", "-t", pane, "Enter"]]
      const typedAnswer = carry({ _tag: "Held", run: ref(id) }, { _tag: "Answer", program: "prog", keys })
      releasing = undefined
      const client = server.start(typedAnswer.commands)
      answering = undefined
      call.client = client
      if (++call.invocations > call.killedAfter) return
    }
    const waiter = yield* invoke(call, [["wait-for", names(id).channel], ["display-message", "-p", "-t", pane, "h"]])
    yield* await_(call, id, waiter, action.timeout, action.lag)
  }

  /**
   * C-c did not cancel the open input a held run's program reads (programs/openInput.ts): the call
   * keeps the pane for it (the machine's KeptOpen); no later call types into that input.
   */
  function* keepOpen(call: Call, action: Action): Program {
    const id = [...held].find((run) => options.get(paneRunOptions.claim) === run && running?.id === run)
    if (id === undefined) return
    held.delete(id)
    yield action.lag
    if (options.get(paneRunOptions.claim) !== id || running?.id !== id) return
    // The list waits for nothing, so it runs whole as its client starts, even one killed right after
    // (whose call then never resumes here): from now on the pane is kept for that input.
    opened.add(id)
    yield* invoke(call, carry({ _tag: "Held", run: ref(id) }, { _tag: "KeptOpen" }).commands)
  }

  const launch = (action: Action, make: (call: Call) => Program) => {
    const call: Call = {
      program: undefined as unknown as Program,
      wakeAt: now,
      instance: action.instance,
      client: undefined,
      invocations: 0,
      killedAfter: action.killedAfter,
      done: false
    }
    ;(call as { program: Program }).program = make(call)
    calls.push(call)
  }
  const stop = (instance: number, orphan: boolean) => {
    for (const call of calls.filter((c) => c.instance === instance && !c.done)) {
      call.done = true
      if (call.client !== undefined && call.client.state === "waiting") {
        if (orphan) server.orphan(call.client)
        else server.kill(call.client)
      }
    }
  }

  /**
   * The sweep an instance makes as it starts (platform/Leftovers.ts): a live waiting client (an
   * orphan: /proc shows it) of a run no pane records is released. Killed waiters it cannot see.
   */
  const sweepLeftovers = () => {
    for (const client of server.clients) {
      const channel = client.state === "waiting" && !client.killed ? client.commands[client.next - 1]?.[1] : undefined
      if (channel !== undefined && !options.has(paneRunOptions.record(channel.slice(-6)))) {
        start([["wait-for", "-S", channel]])
      }
    }
  }

  const tick = () => {
    if (running !== undefined && running.endsAt <= now) {
      const { id, status } = running
      running = undefined
      // The trailer: runs the template the server stored, while it is there.
      if (options.has(names(id).template)) {
        statusOf.set(id, status)
        start([
          ["set-option", "-pu", "-t", pane, paneRunOptions.claim],
          ["wait-for", "-S", names(id).channel],
          ["set-option", "-p", "-t", pane, names(id).end, `0 0 0 ${status}`]
        ])
      }
    }
    for (const call of calls) {
      while (!call.done && call.wakeAt <= now) {
        const next = call.program.next()
        if (next.done === true) call.done = true
        else call.wakeAt = now + next.value
      }
    }
  }

  const actions = [...script].sort((a, b) => a.at - b.at)
  for (now = 0; now <= 200; now++) {
    for (const action of actions.filter((a) => a.at === now)) {
      switch (action.what) {
        case "command":
          launch(action, (call) => newCommand(call, action))
          break
        case "resume":
        case "answer":
          launch(action, (call) => resume(call, action, action.what === "answer"))
          break
        case "keep-open":
          launch(action, (call) => keepOpen(call, action))
          break
        case "cancel": {
          const last = calls.findLast((c) => c.instance === action.instance && !c.done)
          if (last !== undefined) {
            last.done = true
            if (last.client?.state === "waiting") server.kill(last.client)
          }
          break
        }
        case "interrupt":
          running = undefined
          break
        case "respawn":
          running = undefined
          break
        case "restart":
          stop(action.instance, false)
          sweepLeftovers()
          break
        case "death":
          stop(action.instance, true)
          break
        case "server-death":
          // Options, channels and the shell go with the server; a new one starts on the next call.
          server.die()
          options.clear()
          running = undefined
          for (const id of typed) marks.set(id, [...marks.get(id) ?? [], null])
          typed.clear()
          held.clear()
          server.restart()
          break
      }
    }
    tick()
  }
  // Every call is done; what is left recorded is settled as a resume would, from a live instance.
  stop(0, false)
  stop(1, false)
  for (const id of typed) {
    if (!options.has(paneRunOptions.record(id))) continue
    const end = options.get(names(id).end)
    const claimed = options.get(paneRunOptions.claim) === id
    const state: RunState = end !== undefined
      ? { _tag: "Ended", run: ref(id), status: Number(end.split(" ")[3]) }
      : claimed
      ? { _tag: "Stranded", run: ref(id) }
      : { _tag: "Released", run: ref(id) }
    const status = end === undefined ? null : Number(end.split(" ")[3])
    const event: RunEvent = {
      _tag: state._tag === "Stranded" ? "Abandoned" : "Collected",
      collection: collection(status, status === null ? "unreported" : "reported")
    }
    const client = start(carry(state, event).commands)
    if (state._tag === "Stranded" && client.state === "done") abandoned.add(id)
  }
  sweepLeftovers()

  for (const id of typed) {
    const written = marks.get(id) ?? []
    if (written.length !== 1) violations.push(`run ${id} collected ${written.length} times`)
    else if (written[0] !== (statusOf.get(id) ?? null)) {
      violations.push(`run ${id} collected with ${written[0]}, its trailer said ${statusOf.get(id) ?? "nothing"}`)
    }
    if (abandoned.has(id) && server.waiters(names(id).channel) > 0) violations.push(`abandoned ${id} left a waiter`)
    if ((releases.get(id) ?? 0) > 1) violations.push(`run ${id} released by ${releases.get(id)} callers`)
    // A run kept open whose program ends after all signals a channel nobody waits on any more (the
    // keep-open list released the call's waiter): tmux keeps that wake until the server exits. Known.
    if (server.isWoken(names(id).channel) && !opened.has(id)) violations.push(`collected ${id} left its channel woken`)
  }
  for (const client of server.clients) {
    if (client.state === "waiting" && !client.killed) violations.push(`client ${client.id} waits for ever`)
  }
  if ((options.get(paneRunOptions.claim) ?? "") !== "") {
    violations.push(`the claim is left to ${options.get("@lmcp_claim")}`)
  }
  return violations
}

const holds = (machine: Step) => (script: Script) =>
  Effect.sync(() => {
    const violations = simulate(script, machine)
    assert.deepStrictEqual(violations, [], violations.join("; "))
  })

/** `step` with one move's commands changed. */
const broken = (tag: RunEvent["_tag"], change: (commands: Transition["commands"]) => Transition["commands"]): Step =>
(
  state,
  event
) => {
  const moved = step(state, event)
  return moved === undefined || event._tag !== tag ? moved : { ...moved, commands: change(moved.commands) }
}

/** Broken 1: an abandon that does not signal the channel leaves the call's killed waiter queued. */
const abandonWithoutSignal = broken("Abandoned", (commands) => commands.filter((command) => command[0] !== "wait-for"))
/** Broken 2: a collection without its guard collects a run a second time, with another status. */
const collectWithoutGuard = broken("Collected", (commands) => commands.slice(1))
/**
 * Broken 3: a release without its record guard (as it was before the machine): a caller that looked
 * before another released and collected the run releases the next run's claim, and its C-c reaches it.
 */
const releaseUnguarded = broken("Released", (commands) => commands.slice(1))
/** And a release without its successor's -o: two callers release one run. */
const releaseWithoutOnce = broken(
  "Released",
  (commands) =>
    commands.map((command) =>
      command[0] === "set-option" && command.includes("-o")
        ? (command.filter((word) => word !== "-o") as unknown as typeof command)
        : command
    )
)

describe("the run machine over generated interleavings, against tmux 3.3a's wait-for", () => {
  it.effect.prop(
    "types into idle shells only, collects each run once with its status, leaves no waiter or claim",
    [Script],
    ([script]) => holds(step)(script),
    { arbitrary: { runs: 300 } }
  )

  it.effect.prop("holds with calls crowded around C-c's", [Crowded], ([script]) => holds(step)(script), {
    arbitrary: { runs: 300 }
  })

  // Found by the property in CI: the keep-open list ran, then its client was killed.
  it.effect("a keep-open list whose client is killed once it ran still keeps the pane for the open input", () =>
    holds(step)([
      { at: 7, instance: 1, what: "keep-open", duration: 0, timeout: 1, lag: 0, killedAfter: 0 },
      { at: 0, instance: 1, what: "command", duration: 8, timeout: 1, lag: 0, killedAfter: 1 }
    ]))

  for (
    const [name, machine] of [
      ["an abandon that does not release the killed waiter", abandonWithoutSignal],
      ["a collection without its guard", collectWithoutGuard],
      ["a release without its record guard", releaseUnguarded],
      ["a release without its successor's -o", releaseWithoutOnce]
    ] as const
  ) {
    it.effect(`catches ${name}`, () =>
      Effect.gen(function*() {
        assert.strictEqual(yield* checkProperty(Crowded, holds(machine), 2000), "Falsified")
      }))
  }
})
