/**
 * A pane's run, as one state machine: its states (a tagged union), the events that move it, and one
 * pure `step` that gives the next state and the tmux commands that carry the move out (built in
 * domain/runCommands.ts). The programs run what `step` yields (programs/runReadBack.ts, runTyping.ts,
 * paneClaim.ts, openInput.ts, runAnswer.ts); the property test drives the same `step` against a fake tmux with
 * tmux 3.3a's `wait-for` (test/unit/runMachine.property.test.ts); docs/control-loop.md shows it as
 * a table made from `transitions` (scripts/docs.ts).
 *
 * The state lives in tmux, on the pane (docs/control-loop.md, "Where a run's truth is kept"), not in a
 * server's memory: a program names the state it found there, and tmux's own guards (a `-o` set, a
 * format that expands to an invalid option name) refuse a command list whose state has moved since.
 * Some moves are made by others than this server: the trailer in the shell (`Signalled`), a C-c
 * (`Interrupted`), tmux itself (`PaneLost`, `ServerDied`); they yield no command. `Typed` yields the
 * typing list up to its Enter; the program that runs it adds its wait and its read.
 */
import * as Schema from "effect/Schema"
import * as SchemaGetter from "effect/SchemaGetter"
import * as Struct from "effect/Struct"
import {
  abandon,
  answerCommands,
  collect,
  fence,
  forgetShellFlags,
  keepOpen,
  progress,
  release,
  sweep,
  type TmuxCommand,
  typing,
  withdraw
} from "./runCommands.ts"
import { parseEndRecord } from "./runPositions.ts"
import { markOf } from "./runRecord.ts"
import { Collection, Ending, Head, RunRef, Typing } from "./runShapes.ts"

/** The run's shapes, written once (domain/runShapes.ts). */
export { RunRef } from "./runShapes.ts"

/**
 * A pane's run state:
 * - `Free`: no run holds the pane;
 * - `Running`: typed, its program runs, a call waits for it;
 * - `Held`: typed, answered unfinished (timed out, blocked, cancelled): no call waits, `resume` may;
 * - `Stranded`: its trailer can never run (C-c in the pane, its shell exited or replaced);
 * - `Open`: back at an open input C-c did not cancel: the run keeps the pane, a later call is refused;
 * - `Released`: a caller gave up its claim (see domain/paneTurn.ts); its record waits to be reported;
 * - `Ended`: its trailer ran (status recorded, claim released), not collected yet;
 * - `Collected`: its options are gone and the pane's mark says how it ended.
 * @category models
 */
export const RunState = Schema.Union([
  Schema.TaggedStruct("Free", {}),
  Schema.TaggedStruct("Running", { run: RunRef }),
  Schema.TaggedStruct("Held", { run: RunRef }),
  Schema.TaggedStruct("Stranded", { run: RunRef }),
  Schema.TaggedStruct("Open", { run: RunRef }),
  Schema.TaggedStruct("Released", { run: RunRef }),
  Schema.TaggedStruct("Ended", { run: RunRef, status: Schema.Number }),
  Schema.TaggedStruct("Collected", { runId: Schema.String, status: Schema.NullOr(Schema.Number), ended: Ending })
])
export type RunState = typeof RunState.Type

/**
 * What moves a run:
 * - `Typed`: the typing list reached its paste (claim, record, generation taken): its commands;
 * - `Withdrawn`: a typing list that never reached its paste: what it set goes, its claim too;
 * - `Answered`: the call answered the run unfinished; `Answer`: text typed into its blocked program;
 * - `Signalled`: the trailer ran (end record, claim released, channel signalled);
 * - `Interrupted`: C-c in the pane: the rest of the typed line, the trailer included, never runs;
 * - `KeptOpen`: C-c did not cancel the open input the run left: the run keeps the pane;
 * - `Released`: a waiting caller saw the run could no longer report and took its successor option;
 * - `Collected` / `Abandoned`: its result in hand, its options and its channel removed (abandoned:
 *   its trailer never ran, so its claim is given up too);
 * - `PaneLost` / `ServerDied`: tmux dropped the pane or exited, options and all;
 * - `Fenced`: a typing list whose answer was lost is fenced out by its generation, whatever the run's
 *   state (it moves none): typed or not, nothing of that list is typed later;
 * - `Progressed`: an unfinished run's answer keeps where it ended in the run's record;
 * - `ShellForgotten`: what in-shell runs left for a shell that is gone is dropped, once its run is closed;
 * - `Swept`: a run that was never typed (no typed record, no claim) of a dead instance, found by the
 *   startup sweep: its templates and record go (platform/Leftovers.ts).
 * @category models
 */
export const RunEvent = Schema.Union([
  Schema.TaggedStruct("Typed", { run: RunRef, typing: Typing }),
  Schema.TaggedStruct("Withdrawn", { run: RunRef, bufferTag: Schema.String }),
  Schema.TaggedStruct("Answered", {}),
  Schema.TaggedStruct("Answer", {
    program: Schema.String,
    keys: Schema.Array(Schema.Array(Schema.String))
  }),
  Schema.TaggedStruct("Signalled", { status: Schema.Number }),
  Schema.TaggedStruct("Interrupted", {}),
  Schema.TaggedStruct("KeptOpen", {}),
  Schema.TaggedStruct("Released", { successor: Schema.String }),
  Schema.TaggedStruct("Collected", { collection: Collection }),
  Schema.TaggedStruct("Abandoned", { collection: Collection }),
  Schema.TaggedStruct("PaneLost", {}),
  Schema.TaggedStruct("ServerDied", {}),
  Schema.TaggedStruct("Fenced", { paneId: Schema.String, generation: Schema.Number }),
  Schema.TaggedStruct("Progressed", { record: Schema.String }),
  Schema.TaggedStruct("ShellForgotten", { paneId: Schema.String }),
  Schema.TaggedStruct("Swept", { run: RunRef })
])
export type RunEvent = typeof RunEvent.Type

/** A move: the next state and the commands that carry it out (none when others carry it). */
export interface Transition {
  readonly next: RunState
  readonly commands: ReadonlyArray<TmuxCommand>
}

const holding = ["Running", "Held", "Stranded", "Open"] as const
type Holding = Extract<RunState, { readonly _tag: (typeof holding)[number] }>
const holds = (state: RunState): state is Holding => (holding as ReadonlyArray<string>).includes(state._tag)

const collected = (run: RunRef, collection: Collection): RunState => ({
  _tag: "Collected",
  runId: run.id,
  status: collection.status,
  ended: collection.ended
})

/** How one event moves a run from a state: the transition, or `undefined` when it cannot happen there. */
type Move<E> = (state: RunState, event: E) => Transition | undefined

/**
 * One move for every event of `E`, keyed by its tag: an event added to the union without a move
 * here does not compile (test/types/fail/run-event-without-move.ts).
 * @category models
 */
export type Moves<E extends { readonly _tag: string }> = {
  readonly [K in E["_tag"]]: Move<Extract<E, { readonly _tag: K }>>
}

const to = (next: RunState, commands: ReadonlyArray<TmuxCommand> = []): Transition => ({ next, commands })

/** A move only a run that holds the pane (any state but `Free` and `Collected`) can make. */
const ofRun = <E>(
  move: (
    state: Exclude<RunState, { readonly _tag: "Free" | "Collected" }>,
    run: RunRef,
    event: E
  ) => Transition | undefined
): Move<E> =>
(state, event) => state._tag === "Free" || state._tag === "Collected" ? undefined : move(state, state.run, event)

/** Whether no run holds the pane: a new one may be typed. */
const free = (state: RunState): boolean => state._tag === "Free" || state._tag === "Collected"

/** The machine's moves, one per event. @category models */
export const moves: Moves<RunEvent> = {
  ServerDied: () => to({ _tag: "Free" }),
  PaneLost: (state) => state._tag === "Free" ? undefined : to({ _tag: "Free" }),
  Typed: (state, event) =>
    free(state) ? to({ _tag: "Running", run: event.run }, typing(event.run, event.typing)) : undefined,
  Withdrawn: (state, event) => free(state) ? to(state, withdraw(event.run, event.bufferTag)) : undefined,
  Swept: (state, event) => free(state) ? to(state, sweep(event.run)) : undefined,
  Answered: ofRun((state, run) => state._tag === "Running" ? to({ _tag: "Held", run }) : undefined),
  Answer: ofRun((state, run, event) =>
    state._tag === "Held" && event.keys.every((key) => typesInto(run, key))
      ? to({ _tag: "Running", run }, answerCommands(run, event.program, event.keys as ReadonlyArray<TmuxCommand>))
      : undefined
  ),
  Signalled: ofRun((state, run, event) =>
    state._tag === "Running" || state._tag === "Held" ? to({ _tag: "Ended", run, status: event.status }) : undefined
  ),
  Interrupted: ofRun((state, run) =>
    state._tag === "Running" || state._tag === "Held" ? to({ _tag: "Stranded", run }) : undefined
  ),
  KeptOpen: ofRun((state, run) => holds(state) ? to({ _tag: "Open", run }, keepOpen(run)) : undefined),
  Released: ofRun((state, run, event) =>
    holds(state) ? to({ _tag: "Released", run }, release(run, event.successor)) : undefined
  ),
  Collected: ofRun((state, run, event) =>
    state._tag === "Ended" || state._tag === "Released"
      ? to(collected(run, event.collection), collect(run, event.collection))
      : undefined
  ),
  // A call whose own run was released by another meanwhile abandons it still: its trailer never ran.
  Abandoned: ofRun((state, run, event) =>
    holds(state) || state._tag === "Released"
      ? to(collected(run, event.collection), abandon(run, event.collection))
      : undefined
  ),
  Fenced: (state, event) => to(state, fence(event.paneId, event.generation)),
  // Kept only while the record is there: an unfinished run, holding its pane or released.
  Progressed: ofRun((state, run, event) =>
    holds(state) || state._tag === "Released" ? to(state, progress(run, event.record)) : undefined
  ),
  ShellForgotten: (state, event) => free(state) ? to(state, forgetShellFlags(event.paneId)) : undefined
}

/**
 * The next state and the commands that carry the move out, or `undefined` when `event` cannot happen
 * in `state` (a program that asks for such a move has the wrong state: it runs nothing).
 */
export const step = (state: RunState, event: RunEvent): Transition | undefined =>
  (moves[event._tag] as Move<RunEvent>)(state, event)

/**
 * What tmux holds of one run on its pane: the fields of a run's head (domain/runShapes.ts `Head`)
 * that say its state. @category schemas
 */
export const PaneRecords = Head.mapFields(Struct.pick(["runRecord", "endRecord", "claim", "collected"]))
export type PaneRecords = typeof PaneRecords.Type

/**
 * The run's state as its pane's options show it: the one reading of a run's records that the programs
 * ask `step` from, decoded from its head (the run the head was read for beside it). tmux does not
 * tell Running from Held or Stranded (whether a call waits for the run, whether its trailer can still
 * run): a run that holds the pane without an end reads `Held`, the state a call that does not wait for
 * it finds; one that no longer holds it reads `Released`. A state is not written back as records:
 * encoding is refused. @category schemas
 */
export const RunOnPane = Schema.Struct({ run: RunRef, records: PaneRecords }).pipe(Schema.decodeTo(RunState, {
  decode: SchemaGetter.transform(({ records, run }): RunState => {
    if (records.runRecord === "") {
      const mark = markOf(run.id, records.collected)
      return mark === undefined
        ? { _tag: "Free" }
        : { _tag: "Collected", runId: run.id, status: mark.status, ended: mark.ended }
    }
    const end = parseEndRecord(records.endRecord)
    if (end !== undefined) return { _tag: "Ended", run, status: end.status }
    return records.claim === run.id ? { _tag: "Held", run } : { _tag: "Released", run }
  }),
  encode: SchemaGetter.forbiddenEncoding
}))

const decodeRunOnPane = Schema.decodeSync(RunOnPane)

/** `RunOnPane` for the head read for `run`. */
export const stateOnPane = (records: PaneRecords, run: RunRef): RunState => decodeRunOnPane({ run, records })

/**
 * The move that closes a run found in `state`, its result in hand: collected once it ended or was
 * released; abandoned while it holds the pane (its trailer will not run, and its claim is given up);
 * none once it is closed (another call collected it).
 */
export const closing = (state: RunState, collection: Collection): Transition | undefined =>
  step(state, { _tag: state._tag === "Ended" || state._tag === "Released" ? "Collected" : "Abandoned", collection })

/** An answer's keys go to the run's pane and nowhere else. */
const typesInto = (run: RunRef, key: ReadonlyArray<string>): boolean =>
  key[0] === "send-keys" && key[1] === "-t" && key[2] === run.paneId

/**
 * The commands of a move a program makes from the state it found on the pane. A move the machine does
 * not have is a defect of the program, not of the pane: it dies.
 */
export const commandsOf = (state: RunState, event: RunEvent): ReadonlyArray<TmuxCommand> => {
  const moved = step(state, event)
  if (moved === undefined) throw new Error(`no ${event._tag} move from a run ${state._tag}`)
  return moved.commands
}

/** One row of the machine's table: a state, an event, the next state and the commands. @category models */
export interface TransitionRow {
  readonly state: RunState["_tag"]
  readonly event: RunEvent["_tag"]
  readonly next: RunState["_tag"]
  readonly commands: ReadonlyArray<TmuxCommand>
}

/**
 * Every move of the machine, for a run `<id>` in pane `<pane>` (docs/control-loop.md's table, made by
 * scripts/docs.ts): each state tried with each event, the moves it has kept.
 */
export const transitions = (): ReadonlyArray<TransitionRow> => {
  const run: RunRef = { id: "<id>", paneId: "<pane>" }
  const collection: Collection = { status: 0, ended: "reported", collector: "<tag>", at: 0 }
  const states: ReadonlyArray<RunState> = [
    { _tag: "Free" },
    { _tag: "Running", run },
    { _tag: "Held", run },
    { _tag: "Stranded", run },
    { _tag: "Open", run },
    { _tag: "Released", run },
    { _tag: "Ended", run, status: 0 },
    { _tag: "Collected", runId: run.id, status: 0, ended: "reported" }
  ]
  // One sample of every event, by tag: an event without one does not compile, so the table has them all.
  const samples: { readonly [K in RunEvent["_tag"]]: Extract<RunEvent, { readonly _tag: K }> } = {
    Typed: {
      _tag: "Typed",
      run,
      typing: {
        generation: 0,
        view: { panePid: 0, cursorX: 0, width: 0, height: 0, generation: "" },
        templates: { end: "<trailer>" },
        record: "<record>",
        bufferTag: "<tag>",
        keepPane: false
      }
    },
    Withdrawn: { _tag: "Withdrawn", run, bufferTag: "<tag>" },
    Answered: { _tag: "Answered" },
    Answer: { _tag: "Answer", program: "<program>", keys: [["send-keys", "-t", run.paneId, "<keys>"]] },
    Signalled: { _tag: "Signalled", status: 0 },
    Interrupted: { _tag: "Interrupted" },
    KeptOpen: { _tag: "KeptOpen" },
    Released: { _tag: "Released", successor: "<pid>" },
    Collected: { _tag: "Collected", collection },
    Abandoned: { _tag: "Abandoned", collection: { ...collection, status: null, ended: "unreported" } },
    PaneLost: { _tag: "PaneLost" },
    ServerDied: { _tag: "ServerDied" },
    Fenced: { _tag: "Fenced", paneId: run.paneId, generation: 1 },
    Progressed: { _tag: "Progressed", record: "<record>" },
    ShellForgotten: { _tag: "ShellForgotten", paneId: run.paneId },
    Swept: { _tag: "Swept", run }
  }
  const events: ReadonlyArray<RunEvent> = Object.values(samples)
  return states.flatMap((state) =>
    events.flatMap((event) => {
      const moved = step(state, event)
      return moved === undefined
        ? []
        : [{ state: state._tag, event: event._tag, next: moved.next._tag, commands: moved.commands }]
    })
  )
}
