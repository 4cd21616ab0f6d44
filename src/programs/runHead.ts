/**
 * What run_shell_command reads of a run in tmux: the head of every read (the run's records and the
 * pane's position), the bottom rows read with it, and the commands that collect or abandon a run.
 */
import * as Effect from "effect/Effect"
import type { PaneId } from "../domain/ids.ts"
import { marks, paneRunOptions, protocolNames } from "../domain/protocolNames.ts"
import { type CollectedMark, encodeMark } from "../domain/runRecord.ts"
import { keepPaneCommands, parseEndRecord } from "../domain/shellProtocol.ts"
import { PaneProcess } from "../services/PaneProcess.ts"
import { type Run } from "../services/ShellRuns.ts"
import { PaneCommand, type PrintFormat } from "../services/Tmux.ts"
import { orPaneNotFound } from "./pane.ts"
import { type KernelProbe, type RunScreen } from "./runWatch.ts"
import { resolvePane } from "./targets.ts"

/** Rows read above the prompt row, for output that scrolled (see `startRun`). */
export const scrollMargin = 100

/** The kernel's view of a pane's processes, for readiness and the run watcher. */
export const kernelProbe = (_tty?: string) =>
  Effect.gen(function*() {
    const processes = yield* PaneProcess
    return {
      shell: processes.shell,
      front: processes.front,
      mode: processes.terminalMode
    } satisfies KernelProbe
  })

/** The line printed between the parts of a run's read: it carries the run's ID. */
export const separator = marks.separator

/** The head of every read: the run's records, then the pane's position and screen. */
export const headFormat = (runId: string) => {
  const names = protocolNames(runId)
  return `#{${names.end}}|#{${names.start}}|#{${names.typed}}|#{${paneRunOptions.record(runId)}}|` +
    `#{${paneRunOptions.collected}}|` +
    "#{history_size}|#{cursor_y}|#{cursor_x}|#{alternate_on}|#{pane_dead}|#{pane_pid}|#{pane_current_command}"
}

export interface Head {
  readonly record: string
  readonly mark: string
  readonly typed: string
  /** The run's record as tmux holds it (see domain/runRecord.ts). */
  readonly runRecord: string
  /** The pane's collected-run mark (see domain/runRecord.ts `CollectedMark`), of whichever run. */
  readonly collected: string
  readonly history: number
  readonly cursorY: number
  readonly cursorX: number
  readonly alternate: boolean
  readonly dead: boolean
  readonly panePid: number
  readonly program: string
}

export const parseHead = (line: string): Head => {
  const [
    record = "",
    mark = "",
    typed = "",
    runRecord = "",
    collected = "",
    history = "0",
    cursorY = "0",
    cursorX = "0",
    alternate = "0",
    dead = "0",
    panePid = "0",
    ...program
  ] = line.split("|")
  return {
    record,
    mark,
    typed,
    runRecord,
    collected,
    panePid: Number(panePid),
    history: Number(history),
    cursorY: Number(cursorY),
    cursorX: Number(cursorX),
    alternate: alternate === "1",
    dead: dead === "1",
    program: program.join("|")
  }
}

/** A read of the pane from relative row `from`: the head, then untrimmed rows and joined rows. */
export const readCommands = (
  run: Run,
  from: number
): ReadonlyArray<PrintFormat | readonly ["capture-pane", ...Array<string>]> => [
  ["display-message", "-p", "-t", run.paneId, headFormat(run.id)],
  ["display-message", "-p", "-t", run.paneId, separator(run.id)],
  ["capture-pane", "-p", "-N", "-t", run.paneId, "-S", String(from), "-E", "-"],
  ["display-message", "-p", "-t", run.paneId, separator(run.id)],
  ["capture-pane", "-p", "-J", "-t", run.paneId, "-S", String(from), "-E", "-"]
]

/** What the collection's guard expands to when the run's record is gone: another call collected it. */
export const collectedMark = marks.collected

/** A user option nothing sets: what a guarded unset unsets when its condition does not hold. */
const noOption = paneRunOptions.none

/** What a collection leaves in its mark besides the run's ID. @category models */
export type Collection = Pick<CollectedMark, "status" | "ended" | "collector" | "at">

/**
 * Collecting a run, in an invocation of its own once its result is in hand (read by the server):
 * a guard that refuses, so that tmux drops the rest of the list, when the run's record is gone
 * (another call collected it: one collector per run), then the pane's mark of it (replacing the
 * previous run's), its templates and records, and the pane's last run only while it is this one.
 * Its channel needs nothing: the trailer's signal wakes every waiter, including waiting clients
 * killed at a timeout, which tmux keeps as waiters. A run whose trailer never ran also gets what
 * the trailer would have restored.
 */
export const collectCommands = (
  run: Run,
  collection: Collection
): ReadonlyArray<readonly ["set-option", ...Array<string>]> => {
  const names = protocolNames(run.id)
  const record = paneRunOptions.record(run.id)
  const unset = (
    option: string
  ): readonly ["set-option", ...Array<string>] => ["set-option", "-pu", "-t", run.paneId, option]
  return [
    unset(`#{?${record},${noOption},${collectedMark}}`),
    ["set-option", "-p", "-t", run.paneId, paneRunOptions.collected, encodeMark({ runId: run.id, ...collection })],
    ...[
      names.template,
      names.markTemplate,
      names.end,
      names.start,
      names.typed,
      record,
      paneRunOptions.successor(run.id)
    ].map(unset),
    unset(`#{?#{==:#{${paneRunOptions.last}},${run.id}},${paneRunOptions.last},${noOption}}`),
    ...(collection.ended === "reported" || run.remainOnExit === undefined ? [] : keepPaneCommands(run.paneId).restore)
  ]
}

/**
 * Closing a run whose trailer never ran: the killed waiting client of this call is still a waiter
 * of the channel; one signal releases it (and, with a waiter there, latches nothing). The pane's
 * claim is released while it is this run's; then the run is collected.
 */
export const abandonCommands = (
  run: Run,
  collection: Collection
): ReadonlyArray<readonly ["set-option" | "wait-for", ...Array<string>]> => [
  ["wait-for", "-S", protocolNames(run.id).channel],
  [
    "set-option",
    "-pu",
    "-t",
    run.paneId,
    `#{?#{==:#{${paneRunOptions.claim}},${run.id}},${paneRunOptions.claim},${noOption}}`
  ],
  ...collectCommands(run, collection)
]

export const lines = (text: string | undefined): Array<string> => {
  const all = (text ?? "").split("\n")
  return all.slice(0, all.length - 1)
}

export interface Capture {
  readonly head: Head
  readonly rows: ReadonlyArray<string>
  readonly joined: ReadonlyArray<string>
  /** The absolute row of `rows[0]`. */
  readonly firstRow: number
}

export const parseCapture = (stdout: string, runId: string, from: number): Capture => {
  const [head = "", rows, joined] = stdout.split(`${separator(runId)}\n`)
  const parsed = parseHead(lines(head).at(-1) ?? "")
  return {
    head: parsed,
    rows: lines(rows),
    joined: lines(joined),
    firstRow: parsed.history + Math.max(from, -parsed.history)
  }
}

/**
 * The pane's head and its bottom rows (the screen and `scrollMargin` rows above it), with `extra`
 * commands after: one invocation, and all a short run's output needs.
 */
export const lookAtBottom = (run: Run, extra: ReadonlyArray<readonly ["set-option", ...Array<string>]> = []) =>
  Effect.gen(function*() {
    const tmux = yield* PaneCommand
    const stdout = yield* tmux.run([...readCommands(run, -scrollMargin), ...extra]).pipe(orPaneNotFound(run.paneId))
    return parseCapture(stdout, run.id, -scrollMargin)
  })

/** A run's state as its pane's options hold it, in one invocation. */
export const headOfRun = (paneId: PaneId, runId: string) =>
  Effect.gen(function*() {
    const tmux = yield* PaneCommand
    const stdout = yield* tmux.run([["display-message", "-p", "-t", paneId, headFormat(runId)]])
      .pipe(orPaneNotFound(paneId))
    return parseHead(stdout.split("\n")[0] ?? "")
  })

/**
 * What the watcher asks tmux: the run's record and the pane's screen state, in one invocation;
 * with `rows`, also the visible screen (only while a program is seen at the terminal).
 */
export const screenOf = (run: Run) => (rows: boolean) =>
  Effect.gen(function*() {
    const tmux = yield* PaneCommand
    const stdout = yield* tmux.run([
      ["display-message", "-p", "-t", run.paneId, headFormat(run.id)],
      ...(rows
        ? [
          ["display-message", "-p", "-t", run.paneId, separator(run.id)] as const,
          ["capture-pane", "-p", "-t", run.paneId] as const
        ]
        : [])
    ]).pipe(orPaneNotFound(run.paneId))
    const [head = "", screen] = stdout.split(`${separator(run.id)}\n`)
    const parsed = parseHead(head.split("\n")[0] ?? "")
    // A pane that closed answers with empty fields (tmux 3.3a): say which panes exist instead.
    if (parsed.panePid === 0) yield* resolvePane(run.paneId)
    return {
      recorded: parseEndRecord(parsed.record) !== undefined,
      typed: parsed.typed !== "",
      dead: parsed.dead,
      alternate: parsed.alternate,
      program: parsed.program,
      cursorX: parsed.cursorX,
      cursorY: parsed.cursorY,
      ...(screen === undefined ? {} : { rows: lines(screen) })
    } satisfies RunScreen
  })
