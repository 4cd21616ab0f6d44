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
import { cellsOf, sliceCells } from "../domain/cells.ts"
import { sameFile } from "../domain/files.ts"
import { decodeRecord, describeCommand, encodeRecord, paneRunOptions, type RunRecord } from "../domain/runRecord.ts"
import { candidateShifts, placeStart, trimChunk, trimsPossible, type TypedAt } from "../domain/runStart.ts"
import {
  extractOutput,
  lineTooLong,
  needsStartMark,
  parseEndRecord,
  parseStartMark,
  parseTypedRecord,
  protocolNames,
  runIdPattern,
  shellKind,
  templates,
  terminalLineLimit,
  trailerLine,
  typedRecord,
  typedText
} from "../domain/shellProtocol.ts"
import { inheritedPath } from "../domain/socket.ts"
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
import { reads } from "../services/TmuxReads.ts"
import { orPaneNotFound, readPane, relativeRow, stateFields } from "./pane.ts"
import { readOutput, readWindows } from "./runOutput.ts"
import { awaitReady, type KernelProbe, type RunEvent, type RunScreen, timings, watchRun } from "./runWatch.ts"
import { resolvePane } from "./targets.ts"

/** Rows read above the prompt row, for output that scrolled (see `startRun`). */
const scrollMargin = 100

/** Rows read above each place the typed row may be (see `startOf`). */
const windowMargin = 20

/** A fresh random run ID (see `runIdPattern`). */
export const newRunId = (): string => randomBytes(3).toString("hex")

/** What a finished look at a run found. @category models */
export interface RunOutput {
  readonly lines: ReadonlyArray<string>
  readonly status: number | undefined
  /** The output outgrew the history: its beginning is gone. */
  readonly startLost: boolean
  /** Where the output begins could not be found: `lines` is empty rather than risk older rows. */
  readonly startUnknown: boolean
  /** Lines before `lines`, and their bytes, counted but not read back. */
  readonly droppedLines: number
  readonly droppedBytes: number
  /** Counting stopped at `countUntil`: there are more lines before than `droppedLines`. */
  readonly countPartial: boolean
}

/** How much of a run's output a call returns at most. @category models */
export interface OutputLimits {
  readonly maxLines: number
  readonly maxBytes: number
  /** When counting the lines left out stops (epoch milliseconds): the call keeps its timeout. */
  readonly countUntil: number
}

/** How a run's wait ended. @category models */
export type RunOutcome =
  | { readonly _tag: "Finished"; readonly output: RunOutput }
  | { readonly _tag: "TimedOut"; readonly output: RunOutput }
  | { readonly _tag: "Blocked"; readonly by: string; readonly output: RunOutput }

const runFields = {
  ...stateFields,
  pane_tty: "string",
  "@lmcp_claim": "string",
  "@lmcp_last": "string",
  "@lmcp_gen": "string"
} as const

/** The pane's typing generation as read (see domain/runRecord.ts); 0 before the first run. */
const generationOf = (value: string): number => /^[0-9]{1,15}$/u.test(value) ? Number(value) : 0

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
  return `#{${names.end}}|#{${names.start}}|#{${names.typed}}|#{${paneRunOptions.record(runId)}}|` +
    "#{history_size}|#{cursor_y}|#{cursor_x}|#{alternate_on}|#{pane_dead}|#{pane_pid}|#{pane_current_command}"
}

interface Head {
  readonly record: string
  readonly mark: string
  readonly typed: string
  /** The run's record as tmux holds it (see domain/runRecord.ts). */
  readonly runRecord: string
  readonly history: number
  readonly cursorY: number
  readonly cursorX: number
  readonly alternate: boolean
  readonly dead: boolean
  readonly panePid: number
  readonly program: string
}

const parseHead = (line: string): Head => {
  const [
    record = "",
    mark = "",
    typed = "",
    runRecord = "",
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
const readCommands = (
  run: Run,
  from: number
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
  return [
    names.template,
    names.markTemplate,
    names.end,
    names.start,
    names.typed,
    paneRunOptions.record(run.id),
    paneRunOptions.successor(run.id),
    paneRunOptions.last
  ].map((option) => ["set-option", "-pu", "-t", run.paneId, option] as const)
}

/**
 * Closing a run whose trailer never ran: the killed waiting client of this call is still a waiter
 * of the channel; one signal releases it (and, with a waiter there, latches nothing).
 */
const abandonCommands = (run: Run): ReadonlyArray<readonly ["set-option" | "wait-for", ...Array<string>]> => [
  ...collectCommands(run),
  // Its trailer, which releases the pane, never ran.
  ["set-option", "-pu", "-t", run.paneId, paneRunOptions.claim],
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
}

const parseCapture = (stdout: string, runId: string, from: number): Capture => {
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
const lookAtBottom = (run: Run, extra: ReadonlyArray<readonly ["set-option", ...Array<string>]> = []) =>
  Effect.gen(function*() {
    const tmux = yield* PaneCommand
    const stdout = yield* tmux.run([...readCommands(run, -scrollMargin), ...extra]).pipe(orPaneNotFound(run.paneId))
    return parseCapture(stdout, run.id, -scrollMargin)
  })

/**
 * Where the output starts (see domain/runStart.ts): from the rows the waiter read with the signal
 * when they hold the only place the typed row can be, else from one read of the candidate windows.
 */
const startOf = (run: Run, head: Head, capture: Capture | undefined) =>
  Effect.gen(function*() {
    const typed: TypedAt | undefined = parseTypedRecord(head.typed)
    if (typed === undefined) return { _tag: "Unknown" } as const
    const trimmed = trimsPossible(head.history, typed.historyLimit)
    const cleared = !trimmed && head.history < typed.historySize
    const mark = run.markStart ? parseStartMark(head.mark) : undefined
    // Nothing moved the rows: the mark is where the output starts.
    if (mark !== undefined && !trimmed && !cleared) return { _tag: "Found", ...mark, shift: 0 } as const
    const shifts = cleared ? [0] : candidateShifts(typed, head.history)
    // A margin above each window keeps the typed row inside it if output moved the rows meanwhile.
    const spans = shifts.map((shift) => ({
      shift,
      first: Math.max(0, typed.row - shift - windowMargin),
      last: typed.row - shift + run.echoRows
    }))
    // The capture is of the screen in front: with a full-screen program up, not the run's rows.
    const held = capture !== undefined && !head.alternate && shifts.length === 1 && typed.row >= capture.firstRow
    const windows = held
      ? [{ shift: 0, firstRow: capture.firstRow, rows: capture.rows }]
      : (yield* readWindows(run.paneId, head.history, spans, head.alternate))?.map((window, i) => ({
        ...window,
        shift: spans[i]!.shift
      }))
    if (windows === undefined) return { _tag: "Lost" } as const
    const place = placeStart({
      windows,
      typed,
      trailer: run.trailer,
      prompt: run.prompt,
      typedStart: run.typedStart,
      trimmed,
      cleared
    })
    if (mark === undefined || place._tag !== "Found") return place
    return { _tag: "Found", row: mark.row - place.shift, column: mark.column, shift: place.shift } as const
  })

/**
 * The run's output from where it starts to where it recorded its end (or the cursor), bounded by
 * `limits`; `capture` is what the waiter read with the signal, used when it holds the whole output.
 */
const outputOf = (run: Run, head: Head, limits: OutputLimits, capture?: Capture) =>
  Effect.gen(function*() {
    const start = yield* startOf(run, head, capture)
    const record = parseEndRecord(head.record)
    const typed = parseTypedRecord(head.typed)
    // A trim after the record (the next prompt scrolled) moved the end up by whole chunks.
    const chunk = trimChunk(typed?.historyLimit ?? 0)
    const endShift = record !== undefined && head.history < record.historySize
      ? Math.ceil((record.historySize - head.history) / chunk) * chunk
      : 0
    const end = record === undefined
      ? { row: head.history + head.cursorY, column: head.cursorX }
      : { row: record.historySize + record.cursorY - endShift, column: record.cursorX }
    const status = record?.status
    if (start._tag === "Unknown") {
      return {
        lines: [],
        status,
        startLost: false,
        startUnknown: true,
        droppedLines: 0,
        droppedBytes: 0,
        countPartial: false
      }
    }
    const from = start._tag === "Found" ? start : { row: 0, column: 0 }
    const inCapture = capture !== undefined && from.row >= capture.firstRow && !head.alternate
    const read = inCapture
      ? {
        lines: extractOutput(
          capture.rows,
          capture.joined,
          {
            row: from.row - capture.firstRow,
            column: from.column
          },
          end.row - capture.firstRow,
          end.column
        ),
        droppedLines: 0,
        droppedBytes: 0,
        trimmed: false,
        partial: false
      }
      : yield* readOutput({
        paneId: run.paneId,
        history: head.history,
        start: from,
        end: head.alternate ? { row: head.history + run.screenRows - 1, column: Number.MAX_SAFE_INTEGER } : end,
        alternate: head.alternate,
        ...limits
      })
    const lines = head.alternate ? trimBlankTail(read.lines) : read.lines
    return {
      lines,
      status,
      // A trim while reading is output outgrowing the history right then.
      startLost: start._tag === "Lost" || read.trimmed,
      startUnknown: false,
      droppedLines: read.droppedLines,
      droppedBytes: read.droppedBytes,
      countPartial: read.partial
    } satisfies RunOutput
  })

/** The blank rows below the last written one of a saved screen are no output. */
const trimBlankTail = (lines: ReadonlyArray<string>): ReadonlyArray<string> => {
  let end = lines.length
  while (end > 0 && lines[end - 1]!.trim() === "") end--
  return lines.slice(0, end)
}

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

/** A look at an unfinished run: its output so far (with a full-screen program up, behind it). */
const outputSoFar = (run: Run, limits: OutputLimits) =>
  Effect.flatMap(lookAtBottom(run), (capture) => outputOf(run, capture.head, limits, capture))

/** Reads a finished run back and collects it. */
const collectFinished = (run: Run, limits: OutputLimits) =>
  Effect.gen(function*() {
    const capture = yield* lookAtBottom(run, collectCommands(run))
    yield* (yield* ShellRuns).collect(run)
    if (capture.head.runRecord === "") return yield* collectedElsewhere(run)
    return yield* outputOf(run, capture.head, limits, capture)
  })

/** Another call (of this process or another) collected the run first: its result went there. */
const collectedElsewhere = (run: Run) =>
  new InputInvalid({
    tool: "run_shell_command",
    detail: `resume: run ${run.id} was already collected (its result was returned to another call)`
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
  fresh: boolean,
  limits: OutputLimits
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
      const output = yield* outputSoFar(run, limits)
      if (output.status !== undefined) {
        return { _tag: "Finished", output: yield* collectFinished(run, limits) } satisfies RunOutcome
      }
      yield* runs.hold(run)
      return { _tag: "TimedOut", output } satisfies RunOutcome
    }
    const event: RunEvent | { readonly _tag: "Signalled"; readonly stdout: string } = raced.value
    switch (event._tag) {
      case "Signalled": {
        const capture = parseCapture(event.stdout, run.id, from)
        if (parseEndRecord(capture.head.record) === undefined || capture.head.runRecord === "") {
          // The waiting client returned without the record: the tmux server died under it (that
          // read fails with the typed error), another call collected the run first, or the signal
          // came from somewhere else.
          yield* readPane(run.paneId, { pane_id: "string" })
          yield* runs.collect(run)
          return yield* capture.head.runRecord === ""
            ? collectedElsewhere(run)
            : new RunUnreported({ pane: run.paneId, runId: run.id })
        }
        yield* runs.collect(run)
        return { _tag: "Finished", output: yield* outputOf(run, capture.head, limits, capture) } satisfies RunOutcome
      }
      case "Recorded":
        return { _tag: "Finished", output: yield* collectFinished(run, limits) } satisfies RunOutcome
      case "Blocked": {
        yield* runs.hold(run)
        return { _tag: "Blocked", by: event.by, output: yield* outputSoFar(run, limits) } satisfies RunOutcome
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
        const capture = yield* lookAtBottom(run)
        const shown = (yield* outputOf(run, capture.head, { ...limits, maxLines: 8, maxBytes: 1000 }, capture)).lines
          .map((row) => row.trimEnd()).filter((row) => row !== "").slice(-8).join("\n").slice(-1000)
        // Only a start mark that never ran proves that nothing of the command ran.
        const neverStarted = run.markStart && parseStartMark(capture.head.mark) === undefined
        // Cancel any open input so the next command starts at a clean prompt.
        if (fresh) yield* tmux.run([["send-keys", "-t", run.paneId, "C-c"]]).pipe(Effect.ignore)
        yield* tmux.run(abandonCommands(run)).pipe(Effect.ignore)
        yield* runs.collect(run)
        if (!fresh) return yield* new RunUnreported({ pane: run.paneId, runId: run.id })
        return yield* neverStarted
          ? new RunIncomplete({ pane: run.paneId, shown })
          : new RunUnreported({ pane: run.paneId, runId: run.id, shown })
      }
    }
  })

/**
 * The readiness look: the pane's state and its screen, in one invocation (the prompt row's cells
 * before the cursor are what the typed row shows if the terminal does not echo).
 */
const readinessLook = (paneId: string) =>
  Effect.flatMap(reads, (tmux) => tmux.paneAndCapture(paneId, runFields, ["-N", "-S", "0", "-E", "-"])).pipe(
    Effect.map(({ state, captured }) => ({ ...state, screen: captured })),
    orPaneNotFound(paneId)
  )

/** Rows the echo of `typed` takes at `width` columns. */
const echoHeight = (typed: string, width: number): number =>
  typed.split("\n").reduce((rows, line) => rows + Math.ceil((cellsOf(line) + 4) / Math.max(1, width)), 0)

/** Whether the shell's own `TMUX` (`path,pid,index`) names the pinned socket, the same file. */
const sameSocket = (environmentTmux: string | undefined, socketPath: string): boolean => {
  const path = inheritedPath(environmentTmux)
  // The typed `${TMUX%%,*}` cuts at the first comma: a path with one is typed whole instead.
  return path !== undefined && !socketPath.includes(",") && sameFile(path, socketPath)
}

/** The earlier run of a pane that a new run found and collected. @category models */
export interface EarlierRun {
  readonly run_id: string
  /** Its exit status; null when it never reported one (its trailer never ran). */
  readonly exit_status: number | null
}

/** A run's state as its pane's options hold it, in one invocation. */
const headOfRun = (paneId: string, runId: string) =>
  Effect.gen(function*() {
    const tmux = yield* PaneCommand
    const stdout = yield* tmux.run([["display-message", "-p", "-t", paneId, headFormat(runId)]])
      .pipe(orPaneNotFound(paneId))
    return parseHead(stdout.split("\n")[0] ?? "")
  })

/**
 * Waits until no other run holds the pane (see domain/runRecord.ts), whichever server instance
 * typed it, and returns the look at the free pane. A claim whose run can no longer report (its
 * pane's process changed, or its shell sat idle at its prompt without the run's status report) is
 * released once, by the one caller that takes its successor option, with C-c for any open input;
 * that run is returned as `abandoned`. At the deadline, refuses naming the run that holds the pane.
 */
const awaitFreePane = (paneId: string, deadline: number) =>
  Effect.gen(function*() {
    const kernel = yield* kernelProbe("")
    let idleSince: number | undefined
    let abandoned: string | undefined
    let unrecorded: string | undefined
    while (true) {
      const look = yield* readinessLook(paneId)
      const claim = look["@lmcp_claim"]
      if (claim === "") return { look, abandoned }
      if (!runIdPattern.test(claim)) {
        return yield* new PaneNotReady({
          pane: paneId,
          reason: `its option ${paneRunOptions.claim} holds ${JSON.stringify(claim.slice(0, 40))}, ` +
            "which is no run's ID; nothing was typed",
          remedy: "unset the option (set-option -pu) if nothing runs there, or use another pane"
        })
      }
      const head = yield* headOfRun(paneId, claim)
      const recorded = decodeRecord(head.runRecord)
      const now = yield* Clock.currentTimeMillis
      // Its status report came (or it was collected) since the look: the claim is gone, look again;
      // a claim seen twice with no record of its run is no run's.
      const gone = recorded === undefined || head.record !== ""
      if (gone && unrecorded !== claim) {
        unrecorded = claim
        continue
      }
      const shell = yield* kernel.shell(look.pane_pid)
      idleSince = shell?.reading === true && shell.inForeground ? idleSince ?? now : undefined
      const stale = gone || recorded.run.panePid !== look.pane_pid ||
        (idleSince !== undefined && now - idleSince >= timings.idleAfter)
      if (stale) {
        const released = yield* (yield* PaneCommand).run([
          ["set-option", "-p", "-o", "-t", paneId, paneRunOptions.successor(claim), String(process.pid)],
          ["set-option", "-pu", "-t", paneId, paneRunOptions.claim],
          ["send-keys", "-t", paneId, "C-c"]
        ]).pipe(Effect.as(true), Effect.catchIf(isClaimTaken, () => Effect.succeed(false)))
        if (released) abandoned = claim
        idleSince = undefined
        continue
      }
      if (now >= deadline) return yield* claimRefusal(recorded!)
      yield* Effect.sleep(Math.max(1, Math.min(timings.watchPoll, deadline - now)))
    }
  })

/**
 * The earlier runs a new run collects as it types: the last run of the pane if its status report
 * came, and a run whose claim this call released.
 */
const earlierRuns = (paneId: string, last: string, abandoned: string | undefined) =>
  Effect.gen(function*() {
    const found: Array<{ readonly run: Run; readonly earlier: EarlierRun }> = []
    for (const runId of new Set([abandoned ?? "", last])) {
      if (!runIdPattern.test(runId)) continue
      const head = yield* headOfRun(paneId, runId)
      const recorded = decodeRecord(head.runRecord)
      const end = parseEndRecord(head.record)
      if (recorded === undefined || (runId !== abandoned && end === undefined)) continue
      found.push({ run: recorded.run, earlier: { run_id: runId, exit_status: end?.status ?? null } })
    }
    return found
  })

/**
 * A run as its pane's options record it, for `resume` by any server instance (after a restart
 * too); `undefined` when the pane holds no record of it (collected, or never typed there).
 */
export const recordedRun = (paneId: string, runId: string) =>
  Effect.map(headOfRun(paneId, runId), (head) => decodeRecord(head.runRecord)?.run)

const isClaimTaken = (error: ToolError): boolean =>
  error._tag === "TmuxCommandFailed" && /already set: @lmcp_(claim|next_|g[0-9])/u.test(error.stderr)

/** Whether it was the generation that was taken: the claim just before it is then this run's. */
const isGenerationTaken = (error: ToolError): boolean =>
  error._tag === "TmuxCommandFailed" && /already set: @lmcp_g[0-9]/u.test(error.stderr)

/**
 * A new run: waits for the pane to be free and its shell at its prompt, then one invocation that
 * claims the pane, types the command as a paste and waits. When another instance claimed the pane
 * between the look and the typing, tmux refuses the claim and drops the rest of the list: nothing
 * is typed, and the call waits again.
 */
export const startRun = (
  paneId: string,
  command: string,
  suppressHistory: boolean,
  deadline: number,
  limits: OutputLimits
) =>
  Effect.gen(function*() {
    const id = newRunId()
    while (true) {
      let claimed = false
      const attempt = yield* typeRun(id, paneId, command, suppressHistory, deadline, limits).pipe(
        Effect.catchIf(isClaimTaken, (error) => Effect.sync(() => void (claimed = isGenerationTaken(error))))
      )
      if (attempt !== undefined) return attempt
      // What the refused list set before the refusal: the next attempt sets it again.
      const names = protocolNames(id)
      yield* (yield* PaneCommand).run(
        [names.template, names.markTemplate, paneRunOptions.record(id), ...(claimed ? [paneRunOptions.claim] : [])]
          .map((option) => ["set-option", "-pu", "-t", paneId, option] as const)
      ).pipe(Effect.ignore)
    }
  })

const typeRun = (
  id: string,
  paneId: string,
  command: string,
  suppressHistory: boolean,
  deadline: number,
  limits: OutputLimits
) =>
  Effect.gen(function*() {
    const runs = yield* ShellRuns
    const processes = yield* PaneProcess
    const pin = yield* SocketPin
    const { tmuxPath } = yield* Config
    const free = yield* awaitFreePane(paneId, deadline)
    const earlier = yield* earlierRuns(paneId, free.look["@lmcp_last"], free.abandoned)
    const { state, shell } = yield* awaitReady(paneId, readinessLook(paneId), yield* kernelProbe(""), deadline)
    const generation = generationOf(state["@lmcp_gen"])
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
        // fish runs the command in the shell itself, where it can change TMUX (`set -e TMUX`): the
        // trailer then names the socket itself.
        shellKnowsSocket: shellKind(shell) !== "fish" &&
          sameSocket(yield* processes.environment(state.pane_pid, "TMUX"), pin.resolvedPath)
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
      markStart,
      prompt: sliceCells(state.screen.split("\n")[state.cursor_y] ?? "", state.cursor_x),
      typedStart: typed.trimStart().split(" ")[0] ?? "",
      echoRows: echoHeight(typed, state.pane_width) + 2,
      screenRows: state.pane_height
    }
    const record: RunRecord = { run, instance: process.pid, command: describeCommand(command) }
    // Output that scrolls moves the prompt row up before the read: read from a margin above it, so
    // a run that scrolls up to that many rows still needs no second read.
    const from = relativeRow(run.promptRow - scrollMargin, state.history_size)
    const tmux = yield* PaneCommand
    const template = templates(id, paneId)
    const now = yield* Clock.currentTimeMillis
    // The claim comes after the load (which waits for its input) and nothing that waits comes
    // between it and the paste: tmux runs the rest of the list without another client's commands.
    const waiter = tmux.run(
      [
        ["set-option", "-p", "-t", paneId, names.template, template.end],
        ...(markStart ? [["set-option", "-p", "-t", paneId, names.markTemplate, template.mark] as const] : []),
        ["set-option", "-p", "-t", paneId, paneRunOptions.record(id), encodeRecord(record)],
        ["load-buffer", "-b", names.buffer, "-"],
        ["set-option", "-p", "-o", "-t", paneId, paneRunOptions.claim, id],
        // Refused when another run was typed since the look this run types from.
        ["set-option", "-p", "-o", "-t", paneId, paneRunOptions.typedAt(generation + 1), id],
        ["set-option", "-p", "-t", paneId, paneRunOptions.generation, String(generation + 1)],
        ["set-option", "-pu", "-t", paneId, paneRunOptions.typedAt(generation)],
        ...earlier.flatMap((found) => collectCommands(found.run)),
        ["set-option", "-p", "-t", paneId, paneRunOptions.last, id],
        typedRecord(id, paneId),
        ["paste-buffer", "-d", "-p", "-b", names.buffer, "-t", paneId],
        ["send-keys", "-t", paneId, "Enter"],
        ["wait-for", names.channel],
        ...readCommands(run, from),
        ...collectCommands(run)
      ],
      { input: typed, timeoutMs: Math.max(1, deadline - now) + 10_000 }
    ).pipe(orPaneNotFound(paneId))
    for (const found of earlier) yield* runs.collect(found.run)
    // A cancelled call leaves its command running: keep the run for `resume`, like a timeout.
    const outcome = yield* awaitRun(run, waiter, from, deadline, true, limits).pipe(
      Effect.onInterrupt(() => runs.hold(run))
    )
    return { run, outcome, earlier: earlier.map((found) => found.earlier) }
  })

const claimRefusal = (held: RunRecord) =>
  new PaneNotReady({
    pane: held.run.paneId,
    reason: `run ${held.run.id} (${JSON.stringify(held.command.prefix)}…, sha256 ${held.command.digest}, typed by ` +
      `server process ${held.instance}) still holds this pane: it runs, waits for input, or timed out; ` +
      "nothing was typed",
    remedy: `call run_shell_command with resume "${held.run.id}" to wait for it and get its exit status; ` +
      "or interrupt it (send_keys C-c with enter false) and call again"
  })

/** Waits again for a held run: types nothing. */
export const resumeRun = (run: Run, deadline: number, limits: OutputLimits) =>
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
    const head = yield* headOfRun(run.paneId, run.id)
    if (decodeRecord(head.runRecord) === undefined) {
      yield* (yield* ShellRuns).collect(run)
      return yield* collectedElsewhere(run)
    }
    // A run that ended while nobody waited: its record is there, and its signal may have gone
    // unheard, so it is answered from the record, not from a wait.
    if (parseEndRecord(head.record) !== undefined) {
      return { _tag: "Finished", output: yield* collectFinished(run, limits) } satisfies RunOutcome
    }
    const from = relativeRow(run.promptRow, state.history_size)
    const now = yield* Clock.currentTimeMillis
    const waiter = tmux.run(
      [["wait-for", protocolNames(run.id).channel], ...readCommands(run, from), ...collectCommands(run)],
      { timeoutMs: Math.max(1, deadline - now) + 10_000 }
    ).pipe(orPaneNotFound(run.paneId))
    return yield* awaitRun(run, waiter, from, deadline, false, limits)
  })
