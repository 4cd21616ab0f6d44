/**
 * The effects of run_shell_command's completion protocol (the pure parts are in
 * domain/shellProtocol.ts, the waiting logic in runWatch.ts): wait for the shell's prompt, type the
 * command as one paste, wait on the run's channel while watching for what the signal cannot say,
 * read the output back, and collect the run so that nothing of it outlives its result.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { randomBytes } from "node:crypto"
import { sameFile } from "../domain/files.ts"
import {
  extractOutput,
  findEchoEnd,
  lineTooLong,
  needsStartMark,
  parseEndRecord,
  parseStartMark,
  protocolNames,
  shellKind,
  templates,
  terminalLineLimit,
  trailerLine,
  typedText
} from "../domain/shellProtocol.ts"
import { Config } from "../services/Config.ts"
import {
  InputInvalid,
  PaneGone,
  PaneNotReady,
  RunIncomplete,
  RunUnreported,
  type ToolError
} from "../services/errors.ts"
import { PaneProcess } from "../services/PaneProcess.ts"
import { type Run, ShellRuns } from "../services/ShellRuns.ts"
import { SocketPin } from "../services/SocketPin.ts"
import { PaneCommand } from "../services/Tmux.ts"
import { orPaneNotFound, readPane, relativeRow, stateFields } from "./pane.ts"
import { awaitReady, type KernelProbe, type RunEvent, type RunScreen, watchRun } from "./runWatch.ts"
import { resolvePane } from "./targets.ts"

/** Rows read above the prompt row, for output that scrolled (see `startRun`). */
const scrollMargin = 100

/** A fresh random run ID (see `runIdPattern`). */
export const newRunId = (): string => randomBytes(3).toString("hex")

/** What a finished look at a run found. @category models */
export interface RunOutput {
  readonly lines: ReadonlyArray<string>
  readonly status: number | undefined
  readonly startLost: boolean
}

/** How a run's wait ended. @category models */
export type RunOutcome =
  | { readonly _tag: "Finished"; readonly output: RunOutput }
  | { readonly _tag: "TimedOut"; readonly output: RunOutput }
  | { readonly _tag: "Blocked"; readonly by: string; readonly output: RunOutput }

const runFields = { ...stateFields, pane_tty: "string" } as const

const kernelProbe = (tty: string) =>
  Effect.gen(function*() {
    const processes = yield* PaneProcess
    return {
      shell: processes.shell,
      reader: (panePid, group) => processes.terminalReader(panePid, group, tty),
      program: processes.foregroundProgram
    } satisfies KernelProbe
  })

const separator = (runId: string) => `lmcp-sep-${runId}`

/** The head of every read: the run's records, then the pane's position and screen. */
const headFormat = (runId: string) => {
  const names = protocolNames(runId)
  return `#{${names.end}}|#{${names.start}}|#{history_size}|#{cursor_y}|#{cursor_x}|` +
    "#{alternate_on}|#{pane_dead}|#{pane_current_command}"
}

interface Head {
  readonly record: string
  readonly mark: string
  readonly history: number
  readonly cursorY: number
  readonly cursorX: number
  readonly alternate: boolean
  readonly dead: boolean
  readonly program: string
}

const parseHead = (line: string): Head => {
  const [record = "", mark = "", history = "0", cursorY = "0", cursorX = "0", alternate = "0", dead = "0", ...program] =
    line.split("|")
  return {
    record,
    mark,
    history: Number(history),
    cursorY: Number(cursorY),
    cursorX: Number(cursorX),
    alternate: alternate === "1",
    dead: dead === "1",
    program: program.join("|")
  }
}

/** A read of the pane from relative row `from`: the head, then untrimmed rows and joined rows. */
const readCommands = (
  run: Run,
  from: number | "-"
): ReadonlyArray<readonly ["display-message" | "capture-pane", ...Array<string>]> => [
  ["display-message", "-p", "-t", run.paneId, headFormat(run.id)],
  ["display-message", "-p", "-t", run.paneId, separator(run.id)],
  ["capture-pane", "-p", "-N", "-t", run.paneId, "-S", String(from), "-E", "-"],
  ["display-message", "-p", "-t", run.paneId, separator(run.id)],
  ["capture-pane", "-p", "-J", "-t", run.paneId, "-S", String(from), "-E", "-"]
]

/**
 * A collected run's templates and records. Its channel needs nothing: the trailer's signal wakes
 * every waiter, including waiting clients killed at a timeout, which tmux keeps as waiters.
 */
const collectCommands = (run: Run): ReadonlyArray<readonly ["set-option", ...Array<string>]> => {
  const names = protocolNames(run.id)
  return [names.template, names.markTemplate, names.end, names.start].map((option) =>
    ["set-option", "-pu", "-t", run.paneId, option] as const
  )
}

/**
 * Closing a run whose trailer never ran: the killed waiting client of this call is still a waiter
 * of the channel; one signal releases it (and, with a waiter there, latches nothing).
 */
const abandonCommands = (run: Run): ReadonlyArray<readonly ["set-option" | "wait-for", ...Array<string>]> => [
  ...collectCommands(run),
  ["wait-for", "-S", protocolNames(run.id).channel]
]

const lines = (text: string | undefined): Array<string> => {
  const all = (text ?? "").split("\n")
  return all.slice(0, all.length - 1)
}

interface Capture {
  readonly head: Head
  readonly rows: ReadonlyArray<string>
  readonly joined: ReadonlyArray<string>
  /** The absolute row of `rows[0]`. */
  readonly firstRow: number
  /** Whether the rows start at the top of the retained history. */
  readonly whole: boolean
}

const parseCapture = (stdout: string, runId: string, from: number | "-"): Capture => {
  const [head = "", rows, joined] = stdout.split(`${separator(runId)}\n`)
  const parsed = parseHead(lines(head).at(-1) ?? "")
  const first = from === "-" ? -parsed.history : Math.max(from, -parsed.history)
  return {
    head: parsed,
    rows: lines(rows),
    joined: lines(joined),
    firstRow: parsed.history + first,
    whole: first === -parsed.history
  }
}

/** The pane read from relative row `from`, with the run's records: one invocation. */
const look = (run: Run, from: number | "-", extra: ReadonlyArray<readonly ["set-option", ...Array<string>]> = []) =>
  Effect.gen(function*() {
    const tmux = yield* PaneCommand
    const stdout = yield* tmux.run([...readCommands(run, from), ...extra]).pipe(orPaneNotFound(run.paneId))
    return parseCapture(stdout, run.id, from)
  })

/**
 * The run's output from a capture: from where the echo of its trailer ends (or its start mark) to
 * where it recorded its end (or the cursor). When history was trimmed under the run, the whole
 * retained history is searched; the trailer carries the run's ID, so the first match is its echo.
 */
const outputOf = (run: Run, capture: Capture) =>
  Effect.gen(function*() {
    let current = capture
    const locate = (seen: Capture) => {
      const mark = run.markStart ? parseStartMark(seen.head.mark) : undefined
      if (mark !== undefined && mark.row >= seen.firstRow) return { row: mark.row - seen.firstRow, column: mark.column }
      const echo = findEchoEnd(seen.rows, run.promptRow - seen.firstRow, run.trailer)
      return echo === -1 ? undefined : { row: echo + 1, column: 0 }
    }
    let start = locate(current)
    // Output that scrolled moved the prompt row up: read again from where it is now, then, if
    // history was trimmed under the run, from the top of what is left.
    const now = relativeRow(run.promptRow, capture.head.history)
    if (start === undefined && current.firstRow > capture.head.history + now) {
      current = { ...(yield* look(run, now)), head: capture.head }
      start = locate(current)
    }
    if (start === undefined && !current.whole) {
      current = { ...(yield* look(run, "-")), head: capture.head }
      start = locate(current)
    }
    const record = parseEndRecord(capture.head.record)
    const endRow = record === undefined
      ? capture.head.history + capture.head.cursorY
      : record.historySize + record.cursorY
    const endColumn = record === undefined ? capture.head.cursorX : record.cursorX
    const found = start ?? { row: 0, column: 0 }
    return {
      lines: extractOutput(current.rows, current.joined, found, endRow - current.firstRow, endColumn),
      status: record?.status,
      startLost: start === undefined
    } satisfies RunOutput
  })

/** What the watcher asks tmux: the run's record and the pane's screen state, without its rows. */
const screenOf = (run: Run) =>
  Effect.gen(function*() {
    const stdout = yield* (yield* PaneCommand).run([["display-message", "-p", "-t", run.paneId, headFormat(run.id)]])
      .pipe(orPaneNotFound(run.paneId))
    const line = stdout.split("\n")[0] ?? ""
    // A pane that closed answers with empty fields (tmux 3.3a): say which panes exist instead.
    if (line.split("|")[2] === "") yield* resolvePane(run.paneId)
    const head = parseHead(line)
    return {
      recorded: parseEndRecord(head.record) !== undefined,
      dead: head.dead,
      alternate: head.alternate,
      program: head.program
    } satisfies RunScreen
  })

/**
 * The output so far of a run that a full-screen program interrupted: with the alternate screen
 * up, the run's rows are the history plus the saved normal screen (`capture-pane -a`).
 */
const outputBehindAlternate = (run: Run, capture: Capture) =>
  Effect.gen(function*() {
    const tmux = yield* PaneCommand
    const from = Math.max(relativeRow(run.promptRow, capture.head.history), -capture.head.history)
    const history = from < 0
      ? [["capture-pane", "-p", "-N", "-t", run.paneId, "-S", String(from), "-E", "-1"], [
        "capture-pane",
        "-p",
        "-J",
        "-t",
        run.paneId,
        "-S",
        String(from),
        "-E",
        "-1"
      ]] as const
      : []
    const screen = [["capture-pane", "-p", "-a", "-N", "-t", run.paneId, "-S", String(Math.max(0, from))], [
      "capture-pane",
      "-p",
      "-a",
      "-J",
      "-t",
      run.paneId,
      "-S",
      String(Math.max(0, from))
    ]] as const
    const parts = [...history, ...screen]
    const stdout = yield* tmux.run(
      parts.flatMap((
        part,
        i
      ) => [...(i === 0 ? [] : [["display-message", "-p", "-t", run.paneId, separator(run.id)] as const]), part])
    )
      .pipe(orPaneNotFound(run.paneId))
    const [historyRows = "", historyJoined = "", screenRows = "", screenJoined = ""] = history.length === 0
      ? ["", "", ...stdout.split(`${separator(run.id)}\n`)]
      : stdout.split(`${separator(run.id)}\n`)
    const rows = [...lines(historyRows), ...lines(screenRows)]
    while (rows.length > 0 && rows.at(-1)!.trim() === "") rows.pop()
    const joined = [...lines(historyJoined), ...lines(screenJoined)]
    const echo = findEchoEnd(rows, run.promptRow - (capture.head.history + from), run.trailer)
    return {
      lines: extractOutput(rows, joined, { row: echo + 1, column: 0 }, rows.length - 1, Number.MAX_SAFE_INTEGER),
      status: undefined,
      startLost: echo === -1
    } satisfies RunOutput
  })

/** A look at an unfinished run (not a hot path): its output so far, searched from the top of the history. */
const outputSoFar = (run: Run) =>
  Effect.gen(function*() {
    const capture = yield* look(run, "-")
    return capture.head.alternate ? yield* outputBehindAlternate(run, capture) : yield* outputOf(run, capture)
  })

/** Reads a finished run back and collects it, in one invocation. */
const collectFinished = (run: Run) =>
  Effect.gen(function*() {
    const capture = yield* look(run, "-", collectCommands(run))
    yield* (yield* ShellRuns).collect(run)
    return yield* outputOf(run, capture)
  })

/**
 * Waits for a typed run: the `waiter` (an invocation blocked on the run's channel, then reading
 * back and collecting) raced against the watcher, until `deadline`. A finished run is collected; a
 * timed-out or blocked one is held for `resume`.
 */
export const awaitRun = <R>(
  run: Run,
  waiter: Effect.Effect<string, ToolError, R>,
  from: number,
  deadline: number,
  fresh: boolean
) =>
  Effect.gen(function*() {
    const runs = yield* ShellRuns
    const kernel = yield* kernelProbe(run.tty)
    const now = yield* Clock.currentTimeMillis
    const signalled = Effect.map(waiter, (stdout) => ({ _tag: "Signalled" as const, stdout }))
    const raced = yield* signalled.pipe(
      Effect.raceFirst(watchRun(run.panePid, kernel, screenOf(run))),
      Effect.timeoutOption(Math.max(0, deadline - now))
    )
    if (Option.isNone(raced)) {
      const output = yield* outputSoFar(run)
      if (output.status !== undefined) {
        return { _tag: "Finished", output: yield* collectFinished(run) } satisfies RunOutcome
      }
      yield* runs.hold(run)
      return { _tag: "TimedOut", output } satisfies RunOutcome
    }
    const event: RunEvent | { readonly _tag: "Signalled"; readonly stdout: string } = raced.value
    switch (event._tag) {
      case "Signalled": {
        const capture = parseCapture(event.stdout, run.id, from)
        if (parseEndRecord(capture.head.record) === undefined) {
          // The waiting client returned without the record: the tmux server died under it (that
          // read fails with the typed error), or the signal came from somewhere else.
          yield* readPane(run.paneId, { pane_id: "string" })
          yield* runs.collect(run)
          return yield* new RunUnreported({ pane: run.paneId, runId: run.id })
        }
        yield* runs.collect(run)
        return { _tag: "Finished", output: yield* outputOf(run, capture) } satisfies RunOutcome
      }
      case "Recorded":
        return { _tag: "Finished", output: yield* collectFinished(run) } satisfies RunOutcome
      case "Blocked": {
        yield* runs.hold(run)
        return { _tag: "Blocked", by: event.by, output: yield* outputSoFar(run) } satisfies RunOutcome
      }
      case "Exited": {
        yield* (yield* PaneCommand).run(abandonCommands(run)).pipe(Effect.ignore)
        yield* runs.collect(run)
        return yield* new PaneGone({
          pane: run.paneId,
          reason: "lost its process while the command ran (the shell exited)"
        })
      }
      case "Returned": {
        const tmux = yield* PaneCommand
        const capture = yield* look(run, "-")
        const echo = findEchoEnd(capture.rows, 0, run.trailer)
        const shown = echo === -1
          ? []
          : capture.rows.slice(echo + 1).map((row) => row.trimEnd()).filter((row) => row !== "")
        // Cancel the open input so the next command starts at a clean prompt.
        if (fresh) yield* tmux.run([["send-keys", "-t", run.paneId, "C-c"]]).pipe(Effect.ignore)
        yield* tmux.run(abandonCommands(run)).pipe(Effect.ignore)
        yield* runs.collect(run)
        return yield* fresh
          ? new RunIncomplete({ pane: run.paneId, shown: shown.slice(-8).join("\n").slice(-1000) })
          : new RunUnreported({ pane: run.paneId, runId: run.id })
      }
    }
  })

/** Whether the shell's own `TMUX` (`path,pid,index`) names the pinned socket, the same file. */
const sameSocket = (environmentTmux: string | undefined, socketPath: string): boolean =>
  environmentTmux !== undefined &&
  sameFile(environmentTmux.slice(0, environmentTmux.lastIndexOf(",", environmentTmux.lastIndexOf(",") - 1)), socketPath)

/** A new run: readiness, then one invocation that types the command as a paste and waits. */
export const startRun = (paneId: string, command: string, suppressHistory: boolean, deadline: number) =>
  Effect.gen(function*() {
    const runs = yield* ShellRuns
    const processes = yield* PaneProcess
    const pin = yield* SocketPin
    const { tmuxPath } = yield* Config
    const pending = yield* runs.pendingOn(paneId)
    if (pending !== undefined) {
      if ((yield* readPane(paneId, { pane_pid: "int" })).pane_pid === pending.panePid) {
        return yield* pendingRefusal(pending)
      }
      // The pane's process was replaced: nothing of that run can report any more.
      yield* runs.collect(pending)
    }
    const { state, shell } = yield* awaitReady(paneId, readPane(paneId, runFields), yield* kernelProbe(""), deadline)
    const id = newRunId()
    const names = protocolNames(id)
    const long = lineTooLong(shell, command)
    if (long !== undefined) {
      return yield* new InputInvalid({
        tool: "run_shell_command",
        detail: `line ${long} of the command is longer than ${terminalLineLimit} bytes; ${shell} reads the terminal ` +
          "line by line, and the terminal keeps at most 4095 bytes of a line, so it would run a truncated command. " +
          "Split the line (a backslash-newline continues it)"
      })
    }
    const markStart = needsStartMark(shell, command, { width: state.pane_width, height: state.pane_height })
    const typed = typedText({
      kind: shellKind(shell) ?? "posix",
      command,
      runId: id,
      paneId,
      reach: {
        bin: tmuxPath,
        socketPath: pin.resolvedPath,
        shellKnowsSocket: sameSocket(yield* processes.environment(state.pane_pid, "TMUX"), pin.resolvedPath)
      },
      suppressHistory,
      markStart
    })
    const run: Run = {
      id,
      paneId,
      panePid: state.pane_pid,
      tty: state.pane_tty,
      shell,
      promptRow: state.history_size + state.cursor_y,
      trailer: trailerLine(typed),
      markStart
    }
    // Output that scrolls moves the prompt row up before the read: read from a margin above it, so
    // a run that scrolls up to that many rows still needs no second read.
    const from = relativeRow(run.promptRow - scrollMargin, state.history_size)
    const tmux = yield* PaneCommand
    const template = templates(id, paneId)
    const now = yield* Clock.currentTimeMillis
    // Templates first, then the whole text as one paste (all or nothing, tabs stay tabs, no
    // 16 KiB message limit), Enter, and the wait: one tmux invocation.
    const waiter = tmux.run(
      [
        ["set-option", "-p", "-t", paneId, names.template, template.end],
        ...(markStart ? [["set-option", "-p", "-t", paneId, names.markTemplate, template.mark] as const] : []),
        ["load-buffer", "-b", names.buffer, "-"],
        ["paste-buffer", "-d", "-p", "-b", names.buffer, "-t", paneId],
        ["send-keys", "-t", paneId, "Enter"],
        ["wait-for", names.channel],
        ...readCommands(run, from),
        ...collectCommands(run)
      ],
      { input: typed, timeoutMs: Math.max(1, deadline - now) + 10_000 }
    ).pipe(orPaneNotFound(paneId))
    // A cancelled call leaves its command running: keep the run for `resume`, like a timeout.
    return {
      run,
      outcome: yield* awaitRun(run, waiter, from, deadline, true).pipe(Effect.onInterrupt(() => runs.hold(run)))
    }
  })

const pendingRefusal = (pending: Run) =>
  new PaneNotReady({
    pane: pending.paneId,
    reason: `run ${pending.id} typed earlier in this pane is not collected ` +
      "yet (it timed out or is blocked); nothing was typed",
    remedy: `call run_shell_command with resume "${pending.id}" to wait for ` +
      "it and get its exit status (it returns at once if it finished); " +
      "if it waits for input, answer or quit it with send_keys first"
  })

/** Waits again for a held run: types nothing. */
export const resumeRun = (run: Run, deadline: number) =>
  Effect.gen(function*() {
    const tmux = yield* PaneCommand
    const state = yield* readPane(run.paneId, { pane_pid: "int", history_size: "int" })
    if (state.pane_pid !== run.panePid) {
      yield* (yield* ShellRuns).collect(run)
      return yield* new PaneGone({
        pane: run.paneId,
        reason: `was respawned since run ${run.id} was typed; its status is lost`
      })
    }
    // A run that ended while nobody waited: its record is there, and its signal may have gone
    // unheard, so it is answered from the record, not from a wait.
    if ((yield* screenOf(run)).recorded) {
      return { _tag: "Finished", output: yield* collectFinished(run) } satisfies RunOutcome
    }
    const from = relativeRow(run.promptRow, state.history_size)
    const now = yield* Clock.currentTimeMillis
    const waiter = tmux.run(
      [["wait-for", protocolNames(run.id).channel], ...readCommands(run, from), ...collectCommands(run)],
      { timeoutMs: Math.max(1, deadline - now) + 10_000 }
    ).pipe(orPaneNotFound(run.paneId))
    return yield* awaitRun(run, waiter, from, deadline, false)
  })
