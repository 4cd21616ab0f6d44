/**
 * The tmux command lists that carry the run machine's moves out (domain/runMachine.ts, whose `step` is
 * their only caller besides its table): collecting, abandoning, withdrawing, keeping open, releasing a
 * run and answering it. Each is one invocation; a guard first makes tmux drop the rest when the pane is
 * no longer in the state the move was made from.
 */
import { marks, paneRunOptions, pasteBufferName, protocolNames } from "./protocolNames.ts"
import { typedRecord } from "./runPositions.ts"
import { encodeMark } from "./runRecord.ts"
import type { Collection, RunRef, Typing } from "./runShapes.ts"
import { templates } from "./runTemplates.ts"
import { keepPaneCommands } from "./shellProtocol.ts"
import { typingGuard } from "./typingGuard.ts"

/** The run's shapes, written once (domain/runShapes.ts). */
export type { Collection, RunRef, Typing } from "./runShapes.ts"

/** One tmux command the machine yields, as an argv after `tmux`: the run authority's own (services/TmuxGrammar.ts). */
export type TmuxCommand =
  | readonly ["set-option" | "wait-for" | "delete-buffer" | "load-buffer" | "paste-buffer", ...Array<string>]
  | readonly ["send-keys", "-t", string, ...Array<string>]

/**
 * The list that types a run, up to its Enter (the program that runs it adds its wait and its read):
 * the check that the pane is as the run saw it (domain/typingGuard.ts) opens it, so a client that
 * reaches tmux only after its call gave up on it (and fenced its generation: `fence`) sets nothing;
 * the load, which waits for the client's input; the check again, then, with nothing that waits up to
 * the paste (tmux runs the rest without another client's commands), its templates and record, the
 * claim (`-o`: refused while another run holds the pane), the next typing generation (`-o`: refused
 * when another run was typed since the look), the pane's last run, where it was typed, the paste.
 */
export const typing = (run: RunRef, typed: Typing): ReadonlyArray<TmuxCommand> => {
  const names = protocolNames(run.id)
  const { generation, templates } = typed
  const guard = typingGuard(run.paneId, typed.view)
  return [
    guard,
    ["load-buffer", "-b", pasteBufferName(typed.bufferTag, run.id), "-"],
    guard,
    ["set-option", "-p", "-t", run.paneId, names.template, templates.end],
    ...(templates.mark === undefined
      ? []
      : [["set-option", "-p", "-t", run.paneId, names.markTemplate, templates.mark] as const]),
    ["set-option", "-p", "-t", run.paneId, paneRunOptions.record(run.id), typed.record],
    ["set-option", "-p", "-o", "-t", run.paneId, paneRunOptions.claim, run.id],
    ["set-option", "-p", "-o", "-t", run.paneId, paneRunOptions.typedAt(generation + 1), run.id],
    ["set-option", "-p", "-t", run.paneId, paneRunOptions.generation, String(generation + 1)],
    unset(run.paneId, paneRunOptions.typedAt(generation)),
    ...(typed.keepPane ? keepPaneCommands(run.paneId).set : []),
    ["set-option", "-p", "-t", run.paneId, paneRunOptions.last, run.id],
    typedRecord(run.id, run.paneId),
    ["paste-buffer", "-d", "-p", "-b", pasteBufferName(typed.bufferTag, run.id), "-t", run.paneId],
    ["send-keys", "-t", run.paneId, "Enter"]
  ]
}

/**
 * Fences out the typing list of a run typed at `generation` whose client ended without answering:
 * taking that generation first (`-o`) and moving the pane's generation to it makes the list's check
 * and its own `-o` refuse, so nothing of it is typed later (programs/runTyping.ts `pasteReached`).
 */
export const fence = (paneId: string, generation: number): ReadonlyArray<TmuxCommand> => [
  ["set-option", "-p", "-o", "-t", paneId, paneRunOptions.typedAt(generation), "-"],
  ["set-option", "-p", "-t", paneId, paneRunOptions.generation, String(generation)],
  unset(paneId, paneRunOptions.typedAt(generation - 1))
]

/**
 * Where an unfinished run's answer ended, kept in its record (`value`, the record encoded again):
 * set only while the record is there, so a run collected meanwhile gets no record back, and the
 * empty option the set leaves then is unset in the same list. (Base64 has no character a format
 * treats specially.)
 */
export const progress = (run: RunRef, value: string): ReadonlyArray<TmuxCommand> => {
  const option = paneRunOptions.record(run.id)
  return [
    ["set-option", "-pF", "-t", run.paneId, option, `#{?${option},${value},}`],
    ["set-option", "-pu", "-t", run.paneId, `#{?${option},${paneRunOptions.viewOk},${option}}`]
  ]
}

/** Forgets what in-shell runs left in a shell that is gone (replaced by another program). */
export const forgetShellFlags = (paneId: string): ReadonlyArray<TmuxCommand> => [
  unset(paneId, paneRunOptions.shellFlags)
]

/** A user option nothing sets: what a guarded unset unsets when its condition does not hold. */
const noOption = paneRunOptions.none

const unset = (paneId: string, option: string): TmuxCommand => ["set-option", "-pu", "-t", paneId, option]

/** Unsets `option` only while it holds `runId`. */
const unsetWhile = (paneId: string, option: string, runId: string): TmuxCommand =>
  unset(paneId, `#{?#{==:#{${option}},${runId}},${option},${noOption}}`)

/**
 * A run's channel gone from tmux, whatever it held: a lock, two signals, the unlock. The first signal
 * wakes any waiter (a killed client's too) and the second leaves the channel woken, so the unlock
 * removes it; a signal tmux kept with no waiter to wake (one that came while nothing waited: the
 * call had stopped waiting, or never started its waiting client) goes the same way. Nothing else
 * locks a run's channel across a turn of the server, so the lock never waits.
 */
const clearChannel = (run: RunRef): ReadonlyArray<TmuxCommand> => {
  const channel = protocolNames(run.id).channel
  return (["-L", "-S", "-S", "-U"] as const).map((flag) => ["wait-for", flag, channel])
}

/**
 * Collecting a run, in an invocation of its own once its result is in hand: a guard that refuses (so
 * tmux drops the rest of the list) when the run's record is gone (another call collected it: one
 * collector per run), then the pane's mark of it, its templates and records, the pane's last run
 * only while it is this one, and its channel (`clearChannel`). A run whose trailer never ran also gets
 * what the trailer would have restored.
 */
export const collect = (run: RunRef, collection: Collection): ReadonlyArray<TmuxCommand> => {
  const names = protocolNames(run.id)
  const record = paneRunOptions.record(run.id)
  return [
    recordGuard(run),
    ...keepMark(run.paneId),
    ["set-option", "-p", "-t", run.paneId, paneRunOptions.collected, encodeMark({ runId: run.id, ...collection })],
    ...[
      names.template,
      names.markTemplate,
      names.end,
      names.start,
      names.typed,
      record,
      paneRunOptions.successor(run.id)
    ].map((option) => unset(run.paneId, option)),
    unsetWhile(run.paneId, paneRunOptions.last, run.id),
    ...(collection.ended === "reported" || run.remainOnExit === undefined ? [] : keepPaneCommands(run.paneId).restore),
    ...clearChannel(run)
  ]
}

/**
 * Closing a run whose trailer never ran: the pane's claim is released while it is this run's, then
 * the run is collected, its channel with it: the killed waiting client of the call, still a waiter,
 * is woken there. The guard comes first: a second closer of the same run changes nothing.
 */
export const abandon = (run: RunRef, collection: Collection): ReadonlyArray<TmuxCommand> => [
  recordGuard(run),
  unsetWhile(run.paneId, paneRunOptions.claim, run.id),
  ...collect(run, collection)
]

/**
 * What a typing list that never reached its paste set (the next attempt sets it again), its claim
 * while it holds it (a list refused at its generation, or whose client died after the claim), and
 * its paste buffer.
 */
export const withdraw = (run: RunRef, bufferTag: string): ReadonlyArray<TmuxCommand> => [
  ...sweep(run),
  unsetWhile(run.paneId, paneRunOptions.claim, run.id),
  ["delete-buffer", "-b", pasteBufferName(bufferTag, run.id)]
]

/** What a run that was never typed left on its pane: its templates and its record. */
export const sweep = (run: RunRef): ReadonlyArray<TmuxCommand> => {
  const names = protocolNames(run.id)
  return [names.template, names.markTemplate, paneRunOptions.record(run.id)].map((option) => unset(run.paneId, option))
}

/**
 * A run whose open input C-c did not cancel keeps the pane (its claim and record stay, so no run
 * types into that input): the call's own waiting client is released, and the pane is marked so a
 * later call is refused at once while the input is open (see programs/paneClaim.ts).
 */
export const keepOpen = (run: RunRef): ReadonlyArray<TmuxCommand> => [
  ["wait-for", "-S", protocolNames(run.id).channel],
  ["set-option", "-p", "-t", run.paneId, paneRunOptions.openInput, run.id]
]

/** Refuses (tmux drops the rest of the list) when the run's record is gone: another call collected it. */
const recordGuard = (run: RunRef): TmuxCommand =>
  unset(run.paneId, `#{?${paneRunOptions.record(run.id)},${noOption},${marks.collected}}`)

/**
 * Giving up the claim of a run that can no longer report: only the caller that takes the run's
 * successor option (`-o`: tmux refuses the second) releases it, and only while the run is recorded
 * (a caller that looked before another released and collected it would otherwise release the next
 * run's claim, and its C-c reach that run); C-c clears what was left typed.
 */
export const release = (run: RunRef, successor: string): ReadonlyArray<TmuxCommand> => [
  recordGuard(run),
  ["set-option", "-p", "-o", "-t", run.paneId, paneRunOptions.successor(run.id), successor],
  unset(run.paneId, paneRunOptions.claim),
  unset(run.paneId, paneRunOptions.openInput),
  ["send-keys", "-t", run.paneId, "C-c"]
]

/** The guard's view, in plain variables only: the claim, a mode, synchronize-panes, the program, the end. */
const answerSeen = (run: RunRef) =>
  `#{${paneRunOptions.claim}}:#{pane_in_mode}:#{synchronize-panes}:#{pane_current_command}:` +
  `#{${protocolNames(run.id).end}}`

/**
 * The answer's guard: a harmless unset while the pane is as seen (the run's claim, no mode, no
 * synchronize-panes, `program` in front, no end record), an invalid option name otherwise.
 */
export const answerGuard = (run: RunRef, program: string): TmuxCommand =>
  unset(
    run.paneId,
    `#{?#{==:${answerSeen(run)},${run.id}:0:0:${program}:},${paneRunOptions.viewOk},${marks.answerRefused}:${
      answerSeen(run)
    }}`
  )

/** The pane's marks moved down one place, the oldest dropped, before a collection sets the newest. */
const keepMark = (paneId: string): ReadonlyArray<TmuxCommand> => [
  ["set-option", "-pF", "-t", paneId, paneRunOptions.collectedBefore2, `#{${paneRunOptions.collectedBefore}}`],
  ["set-option", "-pF", "-t", paneId, paneRunOptions.collectedBefore, `#{${paneRunOptions.collected}}`]
]

/**
 * Typing an answer: the guard, the run's trailer made to discard what the program leaves unread of
 * it (`templates`' `flush`; kept while the list is one invocation, so no trailer runs the old one
 * after the keys), then the keys.
 */
export const answerCommands = (
  run: RunRef,
  program: string,
  keys: ReadonlyArray<TmuxCommand>
): ReadonlyArray<TmuxCommand> => [
  answerGuard(run, program),
  [
    "set-option",
    "-p",
    "-t",
    run.paneId,
    protocolNames(run.id).template,
    templates(run.id, run.paneId, run.remainOnExit !== undefined, true).end
  ],
  ...keys
]
