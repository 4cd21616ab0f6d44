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
import { thisTag } from "../domain/instance.ts"
import { type BlockKind, screenReasonOf } from "../domain/keyboard.ts"
import { relativeRow } from "../domain/rows.ts"
import { decodeRecord, describeCommand, encodeRecord, paneRunOptions, type RunRecord } from "../domain/runRecord.ts"
import {
  hasErrexit,
  keepPaneCommands,
  lineTooLong,
  needsStartMark,
  parseEndRecord,
  parseStartMark,
  parseTypedRecord,
  protocolNames,
  shellFlagsOf,
  shellFlagsOption,
  shellKind,
  showsPrompt,
  templates,
  terminalLineLimit,
  trailerLine,
  typedRecord,
  typedText
} from "../domain/shellProtocol.ts"
import { inheritedPath } from "../domain/socket.ts"
import { staleChange, typingGuard, type TypingView } from "../domain/typingGuard.ts"
import { Config } from "../services/Config.ts"
import {
  InputInvalid,
  PaneGone,
  PaneNotReady,
  RunIncomplete,
  RunUnreported,
  RunWaitFailed,
  type TmuxCommandFailed,
  type TmuxOutputTooLarge,
  type TmuxTimedOut,
  type ToolError
} from "../services/errors.ts"
import { PaneProcess } from "../services/PaneProcess.ts"
import { type HeldView, type Run, ShellRuns } from "../services/ShellRuns.ts"
import { SocketPin } from "../services/SocketPin.ts"
import { PaneCommand } from "../services/Tmux.ts"
import { orPaneNotFound, readPane } from "./pane.ts"
import {
  awaitFreePane,
  type EarlierRun,
  earlierRuns,
  generationOf,
  isClaimTaken,
  isGenerationTaken,
  readinessLook,
  readyAsHeld
} from "./paneClaim.ts"
import {
  abandonCommands,
  type Capture,
  collectCommands,
  headOfRun,
  kernelProbe,
  lookAtBottom,
  parseCapture,
  readCommands,
  screenOf,
  scrollMargin
} from "./runHead.ts"
import {
  collectedElsewhere,
  collectFinished,
  type OutputLimits,
  outputOf,
  outputSoFar,
  type RunOutput
} from "./runReadBack.ts"
import { awaitReady, type RunEvent, watchRun } from "./runWatch.ts"

/** A fresh random run ID (see `runIdPattern`). */
export const newRunId = (): string => randomBytes(3).toString("hex")

/** How a run's wait ended. @category models */
export type RunOutcome =
  | { readonly _tag: "Finished"; readonly output: RunOutput }
  | { readonly _tag: "TimedOut"; readonly output: RunOutput }
  | { readonly _tag: "Blocked"; readonly by: string; readonly kind: BlockKind; readonly output: RunOutput }
  /** The command ended the shell itself (an in-shell `exit`): its status; the pane is left dead. */
  | { readonly _tag: "ShellExited"; readonly status: number | null; readonly output: RunOutput }

/** The output with what this run's watchers saw before (a pager since quit) among its screen reasons. */
const withSeen = (run: Run, output: RunOutput): RunOutput => ({
  ...output,
  screen: [...new Set([...(run.screenSeen ?? []), ...output.screen])]
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
      Effect.raceFirst(watchRun(run.panePid, run.tty, kernel, screenOf(run))),
      Effect.timeoutOption(Math.max(0, deadline - now))
    )
    if (Option.isNone(raced)) {
      const output = yield* outputSoFar(run, limits)
      if (output.status !== undefined) {
        return { _tag: "Finished", output: withSeen(run, yield* collectFinished(run, limits)) } satisfies RunOutcome
      }
      yield* runs.hold(run)
      return { _tag: "TimedOut", output: withSeen(run, output) } satisfies RunOutcome
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
        const output = yield* outputOf(run, capture.head, limits, capture)
        return { _tag: "Finished", output: withSeen(run, output) } satisfies RunOutcome
      }
      case "Recorded":
        return { _tag: "Finished", output: withSeen(run, yield* collectFinished(run, limits)) } satisfies RunOutcome
      case "Blocked": {
        const seen = screenReasonOf(event.kind)
        const held = seen === undefined ? run : { ...run, screenSeen: [...new Set([...(run.screenSeen ?? []), seen])] }
        yield* runs.hold(held)
        const output = withSeen(held, yield* outputSoFar(run, limits))
        return { _tag: "Blocked", by: event.by, kind: event.kind, output } satisfies RunOutcome
      }
      case "Exited": {
        if (run.inShell === true) return yield* shellExited(run, limits)
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
        if (readsForCommand(run, capture)) {
          yield* runs.hold(run)
          // The shell itself reads for the in-shell command (its `read`): a prompt of the run's.
          const output = withSeen(run, yield* outputSoFar(run, limits))
          return { _tag: "Blocked", by: run.shell, kind: "prompt", output } satisfies RunOutcome
        }
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
 * Whether a shell seen reading its terminal without the run's status report is reading for the
 * command: an in-shell run whose start mark ran (so all of it parsed and it began), with the
 * shell's prompt not drawn again at the cursor (a `read -p` shows its own prompt there).
 */
const readsForCommand = (run: Run, capture: Capture): boolean => {
  if (run.inShell !== true || parseStartMark(capture.head.mark) === undefined) return false
  const row = capture.rows[capture.head.history + capture.head.cursorY - capture.firstRow] ?? ""
  return !showsPrompt(run.prompt, row, capture.head.cursorX)
}

/**
 * An in-shell run whose command ended the shell (`exit`): the pane was kept, dead, for the run (see
 * `keepPaneCommands`), so the shell's status is read. The pane stays dead with its last output
 * (closing it is teardown's, not this tool's); its own `remain-on-exit` is restored.
 */
const shellExited = (run: Run, limits: OutputLimits) =>
  Effect.gen(function*() {
    const tmux = yield* PaneCommand
    const processes = yield* PaneProcess
    // tmux sees the terminal close before it reaps the shell, and 3.3a may not reap it for seconds:
    // the shell's zombie then tells its status (see PaneProcess.exitOf).
    let ended: { readonly status: number | null; readonly signal: number | null } | undefined
    for (let look = 0; look < exitStatusLooks && ended === undefined; look++) {
      if (look > 0) yield* Effect.sleep(50)
      const [code = "", signal = ""] = (yield* tmux.run([
        ["display-message", "-p", "-t", run.paneId, "#{pane_dead_status}|#{pane_dead_signal}"]
      ]).pipe(orPaneNotFound(run.paneId))).trim().split("|")
      ended = /^[0-9]{1,3}$/u.test(code)
        ? { status: Number(code), signal: null }
        : /^[0-9]{1,3}$/u.test(signal)
        ? { status: null, signal: Number(signal) }
        : yield* processes.exitOf(run.panePid, run.shell)
    }
    const capture = yield* lookAtBottom(run)
    const output = yield* outputOf(run, capture.head, limits, capture)
    yield* tmux.run(abandonCommands(run)).pipe(Effect.ignore)
    yield* (yield* ShellRuns).collect(run)
    // Null when a signal ended the shell (or its status never came).
    return { _tag: "ShellExited", status: ended?.status ?? null, output } satisfies RunOutcome
  })

/** Looks, 50 ms apart, for the status of a shell whose pane is dead. */
const exitStatusLooks = 20

/** Rows the echo of `typed` takes at `width` columns. */
const echoHeight = (typed: string, width: number): number =>
  typed.split("\n").reduce((rows, line) => rows + Math.ceil((cellsOf(line) + 4) / Math.max(1, width)), 0)

/** Whether the shell's own `TMUX` (`path,pid,index`) names the pinned socket, the same file. */
const sameSocket = (environmentTmux: string | undefined, socketPath: string): boolean => {
  const path = inheritedPath(environmentTmux)
  // The typed `${TMUX%%,*}` cuts at the first comma: a path with one is typed whole instead.
  return path !== undefined && !socketPath.includes(",") && sameFile(path, socketPath)
}

/** What a new run is asked to do. @category models */
export interface NewRun {
  readonly paneId: string
  readonly command: string
  /** Run it in the shell itself, not in a subshell (fish always does). */
  readonly inShell: boolean
  readonly suppressHistory: boolean
  readonly deadline: number
  readonly limits: OutputLimits
}

/**
 * A new run: waits for the pane to be free and its shell at its prompt, then one invocation that
 * claims the pane, types the command as a paste and waits. When another instance claimed the pane
 * between the look and the typing, or the pane changed (domain/typingGuard.ts), tmux refuses and
 * drops the rest of the list: nothing is typed, and the call looks and waits again (a pane whose
 * process changed is refused).
 */
export const startRun = (request: NewRun) =>
  Effect.gen(function*() {
    const id = newRunId()
    while (true) {
      const attempt = yield* typeRun(id, request).pipe(
        Effect.catchIf(isClaimTaken, (error) =>
          // The generation comes after the claim: when it was refused, the claim was this run's.
          Effect.as(withdrawTyping(id, request.paneId, isGenerationTaken(error)), undefined))
      )
      if (attempt !== undefined) return attempt
      if ((yield* Clock.currentTimeMillis) >= request.deadline) {
        return yield* new PaneNotReady({
          pane: request.paneId,
          reason: "contended",
          detail: "other runs took the pane each time this one was about to type, for the whole timeout; " +
            "nothing was typed",
          remedy: "call again (it is safe), or use another pane for parallel work"
        })
      }
    }
  })

/**
 * What a refused typing list set before the refusal (the next attempt sets it again), and its paste
 * buffer; with `claimed`, the claim it took before the generation was refused.
 */
const withdrawTyping = (id: string, paneId: string, claimed: boolean) =>
  Effect.gen(function*() {
    const names = protocolNames(id)
    yield* (yield* PaneCommand).run([
      ...[names.template, names.markTemplate, paneRunOptions.record(id), ...(claimed ? [paneRunOptions.claim] : [])]
        .map((option) => ["set-option", "-pu", "-t", paneId, option] as const),
      ["delete-buffer", "-b", names.buffer]
    ]).pipe(Effect.ignore)
  })

/** What a run types from: a look at the pane, or what this process held of it. @category models */
interface TypingBasis {
  readonly view: TypingView
  readonly tty: string
  readonly shell: string
  readonly prompt: string
  readonly generation: number
  /** The prompt's absolute row when the pane was looked at; -1 without a look (the typed record says). */
  readonly promptRow: number
  /** The relative row the read-back starts at. */
  readonly from: number
  readonly earlier: ReadonlyArray<{ readonly run: Run; readonly earlier: EarlierRun }>
  /** What in-shell runs left in the shell (see shellFlagsOption): "" when none ran in it. */
  readonly shellFlags: string
  /** The pane's `remain-on-exit` as looked at; absent without a look (in-shell runs always look). */
  readonly remainOnExit?: string
}

/** Waits until the pane is free and its shell at its prompt, and types from that look. */
const lookedBasis = (paneId: string, deadline: number) =>
  Effect.gen(function*() {
    const free = yield* awaitFreePane(paneId, deadline)
    const earlier = yield* earlierRuns(paneId, free.look["@lmcp_last"], free.abandoned)
    // Readiness starts from the look that found the pane free: no second read on a ready pane.
    let fresh: typeof free.look | undefined = free.look
    const look = Effect.suspend(() => {
      const taken = fresh
      fresh = undefined
      return taken === undefined ? readinessLook(paneId) : Effect.succeed(taken)
    })
    const { state, shell } = yield* awaitReady(paneId, look, yield* kernelProbe(""), deadline)
    const promptRow = state.history_size + state.cursor_y
    if (!/^[0-9]{0,15}$/u.test(state["@lmcp_gen"])) {
      return yield* new PaneNotReady({
        pane: paneId,
        reason: "option-invalid",
        detail: `its option ${paneRunOptions.generation} holds ${JSON.stringify(state["@lmcp_gen"].slice(0, 40))}, ` +
          "which is no typing generation; nothing was typed",
        remedy: `unset the option (set-option -pu ${paneRunOptions.generation}), or use another pane`
      })
    }
    return {
      view: {
        panePid: state.pane_pid,
        cursorX: state.cursor_x,
        width: state.pane_width,
        height: state.pane_height,
        generation: state["@lmcp_gen"]
      },
      tty: state.pane_tty,
      shell,
      prompt: sliceCells(state.screen.split("\n")[state.cursor_y] ?? "", state.cursor_x),
      generation: generationOf(state["@lmcp_gen"]),
      promptRow,
      // Output that scrolls moves the prompt row up before the read: read from a margin above it, so
      // a run that scrolls up to that many rows still needs no second read.
      from: relativeRow(promptRow - scrollMargin, state.history_size),
      earlier,
      shellFlags: shellFlagsOf(state[shellFlagsOption], state.pane_pid),
      remainOnExit: state["remain-on-exit"]
    } satisfies TypingBasis
  })

/** Types from what this process held of the pane: no look; the typing list's guard checks it. */
const heldBasis = (held: HeldView): TypingBasis => ({
  view: {
    panePid: held.panePid,
    cursorX: held.cursorX,
    width: held.width,
    height: held.height,
    generation: String(held.generation)
  },
  tty: held.tty,
  shell: held.shell,
  prompt: held.prompt,
  generation: held.generation,
  promptRow: -1,
  // The prompt's row was not read: the read-back covers the screen and `scrollMargin` rows above.
  from: -scrollMargin,
  earlier: [],
  // A view is held only after a subshell run on a pane where no in-shell run left its letters.
  shellFlags: ""
})

const typeRun = (id: string, { command, deadline, inShell: asked, limits, paneId, suppressHistory }: NewRun) =>
  Effect.gen(function*() {
    const runs = yield* ShellRuns
    const processes = yield* PaneProcess
    const pin = yield* SocketPin
    const { tmuxPath } = yield* Config
    // On a ready pane that this process's last run there left, /proc alone says it is ready.
    // An in-shell run looks: it needs the pane's remain-on-exit, and changes the shell's state.
    const held = yield* runs.takeView(paneId)
    const heldFits = held !== undefined && !asked && shellKind(held.shell) !== "fish"
    const basis = heldFits && (yield* readyAsHeld(held, deadline))
      ? heldBasis(held)
      : yield* lookedBasis(paneId, deadline)
    const { earlier, generation, shell, view } = basis
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
    const kind = shellKind(shell) ?? "posix"
    const inShell = asked || kind === "fish"
    // An in-shell run's start mark tells a `read` of its own from the shell back at its prompt.
    const markStart = inShell || needsStartMark(shell, command, { width: view.width, height: view.height })
    const { shellFlags } = basis
    // An exit in the shell would close the pane before its status is read: keep it for the run.
    const keepPane = inShell && basis.remainOnExit !== "on"
    const typed = typedText({
      kind,
      command,
      runId: id,
      paneId,
      reach: {
        bin: tmuxPath,
        socketPath: pin.resolvedPath,
        // A command run in the shell itself can change TMUX (`unset TMUX`, fish's `set -e TMUX`),
        // for later runs too: the trailer then names the socket itself.
        shellKnowsSocket: !inShell && shellFlags === "" &&
          sameSocket(yield* processes.environment(view.panePid, "TMUX"), pin.resolvedPath)
      },
      suppressHistory,
      markStart,
      inShell,
      errexit: hasErrexit(shellFlags)
    })
    const run: Run = {
      id,
      paneId,
      panePid: view.panePid,
      tty: basis.tty,
      shell,
      promptRow: basis.promptRow,
      trailer: trailerLine(typed),
      markStart,
      prompt: basis.prompt,
      typedStart: typed.trimStart().split(" ")[0] ?? "",
      echoRows: echoHeight(typed, view.width) + 2,
      screenRows: view.height,
      ...(inShell ? { inShell } : {}),
      ...(keepPane ? { remainOnExit: basis.remainOnExit === "failed" ? "failed" : "off" } : {})
    }
    const record: RunRecord = { run, instance: process.pid, tag: thisTag, command: describeCommand(command) }
    const tmux = yield* PaneCommand
    const template = templates(id, paneId, keepPane)
    const now = yield* Clock.currentTimeMillis
    // A pane that became ready only as the call's time ran out gets nothing typed: a run typed now
    // could only time out at once.
    if (now >= deadline) {
      return yield* new PaneNotReady({
        pane: paneId,
        reason: "timed-out",
        detail: "the call's timeout ran out before the pane was ready to type into; nothing was typed",
        remedy: "call again with a longer timeout"
      })
    }
    // The guard and the claim come after the load (which waits for its input) and nothing that waits
    // comes between them and the paste: tmux runs the rest of the list without another client's commands.
    const waiter = tmux.run(
      [
        ["set-option", "-p", "-t", paneId, names.template, template.end],
        ...(markStart ? [["set-option", "-p", "-t", paneId, names.markTemplate, template.mark] as const] : []),
        ["set-option", "-p", "-t", paneId, paneRunOptions.record(id), encodeRecord(record)],
        ["load-buffer", "-b", names.buffer, "-"],
        // Refused when the pane is not as this run saw it (its process, mode, screen, prompt, size).
        typingGuard(paneId, view),
        ["set-option", "-p", "-o", "-t", paneId, paneRunOptions.claim, id],
        // Refused when another run was typed since the look this run types from.
        ["set-option", "-p", "-o", "-t", paneId, paneRunOptions.typedAt(generation + 1), id],
        ["set-option", "-p", "-t", paneId, paneRunOptions.generation, String(generation + 1)],
        ["set-option", "-pu", "-t", paneId, paneRunOptions.typedAt(generation)],
        ...(keepPane ? keepPaneCommands(paneId).set : []),
        ...earlier.flatMap((found) => collectCommands(found.run)),
        ["set-option", "-p", "-t", paneId, paneRunOptions.last, id],
        typedRecord(id, paneId),
        ["paste-buffer", "-d", "-p", "-b", names.buffer, "-t", paneId],
        ["send-keys", "-t", paneId, "Enter"],
        ["wait-for", names.channel],
        ...readCommands(run, basis.from),
        ...collectCommands(run)
      ],
      { input: typed, timeoutMs: Math.max(1, deadline - now) + 10_000 }
    ).pipe(orPaneNotFound(paneId))
    for (const found of earlier) yield* runs.collect(found.run)
    // A cancelled call leaves its command running: keep the run for `resume`, like a timeout.
    const outcome = yield* awaitRun(run, waiter, basis.from, deadline, true, limits).pipe(
      Effect.onInterrupt(() => runs.hold(run)),
      Effect.catchIf(
        (error) => error._tag === "TmuxCommandFailed" && staleChange(error.stderr, view) !== undefined,
        (error) =>
          Effect.gen(function*() {
            const stale = staleChange((error as TmuxCommandFailed).stderr, view)!
            yield* withdrawTyping(id, paneId, false)
            // Anything else that changed is looked at again; another process in the pane is not what was asked.
            if (!stale.respawned) return undefined
            return yield* new PaneNotReady({
              pane: paneId,
              reason: "changed",
              detail: `it changed as this call was about to type: ${stale.changes.join("; ")}; nothing was typed`,
              remedy: "look at the pane (snapshot_pane), then call again if its new process is the shell you meant"
            })
          })
      ),
      Effect.catchIf(lostWait, (error) => afterLostWait(run, generation + 1, error))
    )
    if (outcome === undefined) return undefined
    // The next run on this pane may type from this view when /proc says the shell is back at its prompt.
    if (outcome._tag === "Finished" && view.cursorX > 0 && !inShell && shellFlags === "") {
      yield* runs.keepView(paneId, {
        panePid: view.panePid,
        cursorX: view.cursorX,
        width: view.width,
        height: view.height,
        tty: basis.tty,
        shell,
        prompt: basis.prompt,
        generation: generation + 1
      })
    }
    return { run, outcome, earlier: earlier.map((found) => found.earlier) }
  })

/** A failure of the typing invocation's tmux client itself, not an answer about the pane or the run. */
const lostWait = (error: ToolError): error is TmuxCommandFailed | TmuxTimedOut | TmuxOutputTooLarge =>
  (error._tag === "TmuxCommandFailed" && !isClaimTaken(error)) || error._tag === "TmuxTimedOut" ||
  error._tag === "TmuxOutputTooLarge"

/**
 * The invocation that types a run failed on its own account. The pane says whether the paste was
 * reached: the generation the run took right before it is the run's. Typed (or not known), the run
 * is held for `resume`; not typed, what the list set is withdrawn and the failure stands.
 */
const afterLostWait = (run: Run, generation: number, error: TmuxCommandFailed | TmuxTimedOut | TmuxOutputTooLarge) =>
  Effect.gen(function*() {
    const owner = paneRunOptions.typedAt(generation)
    const typed = protocolNames(run.id).typed
    const seen = yield* readPane(run.paneId, { [owner]: "string", [typed]: "string" }).pipe(Effect.option)
    if (Option.isSome(seen) && seen.value[owner] !== run.id && seen.value[typed] === "") {
      yield* withdrawTyping(run.id, run.paneId, false)
      return yield* error
    }
    yield* (yield* ShellRuns).hold(run)
    return yield* new RunWaitFailed({ pane: run.paneId, runId: run.id, cause: error.message })
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
      return { _tag: "Finished", output: withSeen(run, yield* collectFinished(run, limits)) } satisfies RunOutcome
    }
    // Where it was typed, as recorded in the invocation that typed it (the prompt's row may not have been read).
    const from = relativeRow(
      parseTypedRecord(head.typed)?.row ?? (run.promptRow < 0 ? state.history_size - scrollMargin : run.promptRow),
      state.history_size
    )
    const now = yield* Clock.currentTimeMillis
    const waiter = tmux.run(
      [["wait-for", protocolNames(run.id).channel], ...readCommands(run, from), ...collectCommands(run)],
      { timeoutMs: Math.max(1, deadline - now) + 10_000 }
    ).pipe(orPaneNotFound(run.paneId))
    return yield* awaitRun(run, waiter, from, deadline, false, limits)
  })
