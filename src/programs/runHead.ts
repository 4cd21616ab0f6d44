/**
 * What run_shell_command reads of a run in tmux: the head of every read (the run's records and the
 * pane's position), the bottom rows read with it. The commands that collect or abandon a run are the
 * run machine's (domain/runMachine.ts).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { PaneId } from "../domain/ids.ts"
import { marks, paneRunOptions, protocolNames } from "../domain/protocolNames.ts"
import { parseEndRecord } from "../domain/runPositions.ts"
import { type Head, HeadLine } from "../domain/runShapes.ts"
import { PaneProcess } from "../services/PaneProcess.ts"
import { type Run } from "../services/ShellRuns.ts"
import { PaneCommand, type PrintFormat } from "../services/Tmux.ts"
import { orPaneNotFound } from "./pane.ts"
import { type KernelProbe, type RunScreen } from "./runWatch.ts"
import { resolvePane } from "./targets.ts"

/** Rows read above the prompt row, for output that scrolled (see `startRun`). */
export const scrollMargin = 100

/** The kernel's view of a pane's processes, for readiness and the run watcher. */
export const kernelProbe = Effect.gen(function*() {
  const processes = yield* PaneProcess
  return {
    shell: processes.shell,
    front: processes.front,
    mode: processes.terminalMode
  } satisfies KernelProbe
})

/** The line printed between the parts of a run's read: it carries the run's ID. */
export const separator = marks.separator

/** The run's end record alone: empty until its trailer signalled its channel (see `templates`). */
export const endFormat = (runId: string) => `#{${protocolNames(runId).end}}`

/** A print of the run's end record (`endFormat`): a waiting list's `signalled` (platform/ControlLink.ts). */
export const endPrint = (paneId: string, runId: string): PrintFormat => [
  "display-message",
  "-p",
  "-t",
  paneId,
  endFormat(runId)
]

/** The head of every read: the run's records, the pane's claim, then the pane's position and screen. */
export const headFormat = (runId: string) => {
  const names = protocolNames(runId)
  return `${endFormat(runId)}|#{${names.start}}|#{${names.typed}}|#{${paneRunOptions.record(runId)}}|` +
    `#{${paneRunOptions.collected}}/#{${paneRunOptions.collectedBefore}}/#{${paneRunOptions.collectedBefore2}}|` +
    `#{${paneRunOptions.claim}}|` +
    "#{history_size}|#{cursor_y}|#{cursor_x}|#{alternate_on}|#{pane_dead}|#{pane_pid}|#{pane_current_command}"
}

/** The head's fields (domain/runShapes.ts `Head`). */
export type { Head } from "../domain/runShapes.ts"

/** One head line as tmux printed it, decoded (domain/runShapes.ts `HeadLine`). */
export const parseHead: (line: string) => Head = Schema.decodeSync(HeadLine)

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
export const lookAtBottom = Effect.fn("runHead.lookAtBottom")(
  function*(run: Run, extra: ReadonlyArray<readonly ["set-option", ...Array<string>]> = []) {
    const tmux = yield* PaneCommand
    const stdout = yield* tmux.run([...readCommands(run, -scrollMargin), ...extra]).pipe(orPaneNotFound(run.paneId))
    return parseCapture(stdout, run.id, -scrollMargin)
  }
)

/** A run's state as its pane's options hold it, in one invocation. */
export const headOfRun = Effect.fn("runHead.headOfRun")(function*(paneId: PaneId, runId: string) {
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
      recorded: parseEndRecord(parsed.endRecord) !== undefined,
      typed: parsed.typed !== "",
      dead: parsed.dead,
      panePid: parsed.panePid,
      alternate: parsed.alternate,
      program: parsed.program,
      cursorX: parsed.cursorX,
      cursorY: parsed.cursorY,
      ...(screen === undefined ? {} : { rows: lines(screen) })
    } satisfies RunScreen
  })
