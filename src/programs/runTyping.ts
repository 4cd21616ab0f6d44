/**
 * Typing a new run (the pure parts of the protocol are in domain/shellProtocol.ts): one invocation
 * that claims the pane, sets the run's record, types the command as one paste and waits on the
 * run's channel; what it does when tmux refuses the list, or when the invocation itself fails.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { randomBytes } from "node:crypto"
import { cellsOf } from "../domain/cells.ts"
import type { PaneId } from "../domain/ids.ts"
import { paneRunOptions, protocolNames, runIdBytes } from "../domain/protocolNames.ts"
import { commandsOf } from "../domain/runMachine.ts"
import { describeCommand, encodeRecord, markOf, type RecordedTask, type RunRecord } from "../domain/runRecord.ts"
import { templates } from "../domain/runTemplates.ts"
import {
  hasErrexit,
  hasVerbose,
  lineTooLong,
  needsStartMark,
  shellKind,
  terminalLineLimit,
  trailerLine,
  typedText
} from "../domain/shellProtocol.ts"
import { inheritedPath } from "../domain/socket.ts"
import { staleChange } from "../domain/typingGuard.ts"
import { sameFile } from "../platform/files.ts"
import { thisTag } from "../platform/thisInstance.ts"
import { Config } from "../services/Config.ts"
import { ArgumentProblem, PaneNotReady, type TmuxCommandFailed } from "../services/errors.ts"
import { PaneProcess } from "../services/PaneProcess.ts"
import { type Run, ShellRuns } from "../services/ShellRuns.ts"
import { SocketPin } from "../services/SocketPin.ts"
import { PaneCommand } from "../services/Tmux.ts"
import { orPaneNotFound, readPane } from "./pane.ts"
import { type EarlierRun, isClaimTaken, isGenerationTaken, readyAsHeld } from "./paneClaim.ts"
import { afterLostWaiter, awaitRun, type LostWait, lostWait } from "./runAwait.ts"
import { heldBasis, lookedBasis, type TypingBasis } from "./runBasis.ts"
import { endPrint, readCommands } from "./runHead.ts"
import { collectRun, type OutputLimits } from "./runReadBack.ts"

/** A fresh random run ID (see `runIdPattern`). */
export const newRunId = (): string => randomBytes(runIdBytes).toString("hex")

/** Rows the echo of `typed` takes at `width` columns. */
const echoHeight = (typed: string, width: number): number =>
  typed.split("\n").reduce((rows, line) => rows + Math.ceil((cellsOf(line) + 4) / Math.max(1, width)), 0)

/** Whether the shell's own `TMUX` (`path,pid,index`) names the pinned socket, the same file. */
const sameSocket = (environmentTmux: string | undefined, socketPath: string): boolean => {
  const path = inheritedPath(environmentTmux)
  // A tmux client cuts `TMUX` at its first comma: a path with one is typed whole instead.
  return path !== undefined && !socketPath.includes(",") && sameFile(path, socketPath)
}

/** What a new run is asked to do. @category models */
export interface NewRun {
  readonly paneId: PaneId
  readonly command: string
  /** Run it in the shell itself, not in a subshell (fish always does). */
  readonly inShell: boolean
  readonly suppressHistory: boolean
  readonly deadline: number
  readonly limits: OutputLimits
  /** Told the run's ID before anything is typed (a hub passes it on, so a lost call can name its run). */
  readonly named?: ((id: string) => Effect.Effect<void>) | undefined
  /** The MCP task that follows the run, kept in its record from the typing on (wire/Tasks.ts). */
  readonly task?: RecordedTask | undefined
  /** How long the call waits for the run once typed, in milliseconds, when less than to the deadline (a task's). */
  readonly holdMs?: number | undefined
}

/**
 * A new run: waits for the pane to be free and its shell at its prompt, then one invocation that
 * claims the pane, types the command as a paste and waits. When another instance claimed the pane
 * between the look and the typing, or the pane changed (domain/typingGuard.ts), tmux refuses and
 * drops the rest of the list: nothing is typed, and the call looks and waits again (a pane whose
 * process changed is refused).
 */
export const startRun = Effect.fn("runTyping.startRun")(function*(request: NewRun) {
  const id = newRunId()
  if (request.named !== undefined) yield* request.named(id)
  // The earlier runs collected so far: an attempt refused after collecting them still reports them.
  const reported: Array<EarlierRun> = []
  while (true) {
    const attempt = yield* typeRun(id, request, reported).pipe(
      Effect.catchIf(isClaimTaken, () => Effect.as(withdrawTyping(id, request.paneId), undefined))
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
 * What a typing list that never reached its paste set (the next attempt sets it again), its claim
 * while it holds it, and its paste buffer.
 */
const withdrawTyping = (id: string, paneId: PaneId) =>
  Effect.gen(function*() {
    const withdrawn = { _tag: "Withdrawn", run: { id, paneId }, bufferTag: thisTag } as const
    yield* (yield* PaneCommand).run(commandsOf({ _tag: "Free" }, withdrawn)).pipe(Effect.ignore)
  })

/**
 * Readiness: the pane free and its shell at its prompt. On a ready pane that this process's last run
 * there left, /proc alone says it is ready; an in-shell run looks (it needs the pane's remain-on-exit,
 * and changes the shell's state).
 */
const readiness = Effect.fn("Run.readiness")(function*(paneId: PaneId, deadline: number, asked: boolean) {
  const held = yield* (yield* ShellRuns).takeView(paneId)
  const heldFits = held !== undefined && !asked && shellKind(held.shell) !== "fish"
  return heldFits && (yield* readyAsHeld(held, deadline)) ? heldBasis(held) : yield* lookedBasis(paneId, deadline)
})

/** A run as it will be typed: the run, the text typed, and how it is typed. */
interface Shaped {
  readonly run: Run
  readonly typed: string
  readonly markStart: boolean
  readonly keepPane: boolean
  readonly inShell: boolean
}

/** The run `command` makes on a ready pane: what is typed and what the wait knows of it. */
const shapeRun = Effect.fn("Run.shape")(function*(id: string, request: NewRun, basis: TypingBasis) {
  const { command, inShell: asked, paneId, suppressHistory } = request
  const processes = yield* PaneProcess
  const pin = yield* SocketPin
  const { tmuxPath } = yield* Config
  const { shell, view, shellFlags } = basis
  const long = lineTooLong(shell, command)
  if (long !== undefined) {
    return yield* new ArgumentProblem({
      detail: `line ${long} of the command is longer than ${terminalLineLimit} bytes; ${shell} reads the terminal ` +
        "line by line, and the terminal keeps at most 4095 bytes of a line, so it would run a truncated command. " +
        "Split the line (a backslash-newline continues it)"
    })
  }
  const kind = shellKind(shell) ?? "posix"
  const inShell = asked || kind === "fish"
  // An in-shell run's start mark tells a `read` of its own from the shell back at its prompt; a
  // verbose shell's echo of what it read follows the terminal's.
  const markStart = inShell || hasVerbose(shellFlags) ||
    needsStartMark(shell, command, { width: view.width, height: view.height })
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
    ...(inShell && basis.image !== undefined ? { image: basis.image } : {}),
    ...(keepPane ? { remainOnExit: basis.remainOnExit === "failed" ? "failed" : "off" } : {})
  }
  return { run, typed, markStart, keepPane, inShell } satisfies Shaped
})

/**
 * Typing and the wait: the earlier runs collected, then one invocation that runs the machine's typing
 * list (domain/runCommands.ts `typing`), waits on the run's channel and reads it back, raced against
 * the watcher. A list refused because the pane changed since it was seen is withdrawn (`undefined`:
 * look again); one whose client failed is settled by whether its paste was reached.
 */
const typeAndAwait = Effect.fn("Run.typeAndAwait")(function*(
  shaped: Shaped,
  basis: TypingBasis,
  request: NewRun,
  reported: Array<EarlierRun>
) {
  const { run, typed, markStart, keepPane } = shaped
  const { id, paneId } = run
  const { limits } = request
  const { generation, view } = basis
  const record: RunRecord = {
    run,
    instance: process.pid,
    tag: thisTag,
    command: describeCommand(request.command),
    ...(request.task === undefined ? {} : { task: request.task })
  }
  const template = templates(id, paneId, keepPane)
  const now = yield* Clock.currentTimeMillis
  // A pane that became ready only as the call's time ran out gets nothing typed: a run typed now
  // could only time out at once.
  if (now >= request.deadline) {
    return yield* new PaneNotReady({
      pane: paneId,
      reason: "timed-out",
      detail: "the call's timeout ran out before the pane was ready to type into; nothing was typed",
      remedy: "call again with a longer timeout"
    })
  }
  // The earlier runs are collected before the typing, their status in hand (read by `earlierRuns`);
  // one another call collected first is not reported here.
  for (const found of basis.earlier) {
    if (yield* collectRun(found.run, found.state)) {
      reported.push(found.earlier)
    }
  }
  // Readiness may take the whole timeout; a task's call holds the run it typed only so long.
  const deadline = request.holdMs === undefined ? request.deadline : Math.min(request.deadline, now + request.holdMs)
  // The typing list is the machine's (domain/runCommands.ts `typing`), then the wait and the read.
  const typedMove = {
    _tag: "Typed",
    run: { id, paneId, ...(run.remainOnExit === undefined ? {} : { remainOnExit: run.remainOnExit }) },
    typing: {
      generation,
      view,
      templates: markStart ? template : { end: template.end },
      record: encodeRecord(record),
      bufferTag: thisTag,
      keepPane
    }
  } as const
  const waiter = (yield* PaneCommand).run(
    [
      ...commandsOf({ _tag: "Free" }, typedMove),
      // The waiter reads the run back and leaves it recorded: the server collects it once it
      // holds the result (an orphaned waiter, its server dead, or one dropped by a race, harms nothing).
      ["wait-for", protocolNames(id).channel],
      ...readCommands(run, basis.from)
    ],
    // The end record, set right after the signal: a short run's end is seen over the control connection.
    { input: typed, timeoutMs: Math.max(1, deadline - now) + 10_000, signalled: endPrint(paneId, id) }
  ).pipe(orPaneNotFound(paneId))
  // A cancelled call leaves its command running: keep the run for `resume`, like a timeout.
  // A timeout before the paste (the typing client still starting) typed nothing: no run to name.
  const untyped = Effect.map(pasteReached(run, generation + 1), (typed) => !typed)
  const runs = yield* ShellRuns
  return yield* awaitRun(run, waiter, basis.from, deadline, true, limits, untyped).pipe(
    Effect.withSpan("Run.wait", { attributes: { run_id: id } }),
    Effect.onInterrupt(() => runs.hold(run)),
    Effect.catchIf(
      (error) => error._tag === "TmuxCommandFailed" && staleChange(error.refusal, view) !== undefined,
      (error) => staleTyping(run, staleChange((error as TmuxCommandFailed).refusal, view)!)
    ),
    Effect.catchIf(lostWait, (error) => afterLostWait(run, generation + 1, error, limits))
  )
})

/**
 * A typing list refused because the pane changed since it was seen: what it set is withdrawn. Anything
 * else that changed is looked at again (`undefined`); another process in the pane is not what was asked.
 */
const staleTyping = (run: Run, stale: NonNullable<ReturnType<typeof staleChange>>) =>
  Effect.gen(function*() {
    yield* withdrawTyping(run.id, run.paneId)
    if (!stale.respawned) return undefined
    return yield* new PaneNotReady({
      pane: run.paneId,
      reason: "changed",
      detail: `it changed as this call was about to type: ${stale.changes.join("; ")}; nothing was typed`,
      remedy: "look at the pane (snapshot_pane), then call again if its new process is the shell you meant"
    })
  })

/** One attempt at a new run: readiness, its shape, typing and the wait; `undefined` when the pane changed. */
const typeRun = (id: string, request: NewRun, reported: Array<EarlierRun>) =>
  Effect.gen(function*() {
    const basis = yield* readiness(request.paneId, request.deadline, request.inShell)
    const shaped = yield* shapeRun(id, request, basis)
    const outcome = yield* typeAndAwait(shaped, basis, request, reported)
    if (outcome === undefined) return undefined
    const { view, shellFlags } = basis
    // The next run on this pane may type from this view when /proc says the shell is back at its prompt.
    if (outcome._tag === "Finished" && view.cursorX > 0 && !shaped.inShell && shellFlags === "") {
      yield* (yield* ShellRuns).keepView(request.paneId, {
        panePid: view.panePid,
        cursorX: view.cursorX,
        width: view.width,
        height: view.height,
        tty: basis.tty,
        shell: basis.shell,
        prompt: basis.prompt,
        generation: basis.generation + 1
      })
    }
    return { run: shaped.run, outcome, earlier: [...reported] }
  })

/**
 * Whether the typing list of `run`, whose invocation ended without answering (killed at the
 * call's timeout, or failed), reached its paste; settled on the pane by its typing generation. The
 * list takes `@lmcp_g<generation>` right before its paste, with nothing between them that waits:
 * taking it first (and moving the generation on) fences the list out for good, since its guard and
 * its `-o` then refuse, so nothing of it is typed later. A generation this run holds was typed;
 * another run's holds it or the fence: not typed, and what the list set is withdrawn. Not known
 * (tmux did not answer) counts as typed: the run is held, never dropped.
 */
export const pasteReached = (run: Run, generation: number) =>
  Effect.gen(function*() {
    const owner = paneRunOptions.typedAt(generation)
    const typedAt = protocolNames(run.id).typed
    // Typed or not, the fence is the same move (the machine's `Fenced`, from any state).
    const fenced = yield* (yield* PaneCommand).run(
      commandsOf({ _tag: "Running", run }, { _tag: "Fenced", paneId: run.paneId, generation })
    ).pipe(
      Effect.as(true),
      Effect.catchIf(isGenerationTaken, () => Effect.succeed(false))
    )
    // Its list sets where it was typed right before its paste: a later run may have unset its generation's
    // option, never that; a run collected since was typed (its mark names it).
    const seen = yield* readPane(run.paneId, {
      [owner]: "string",
      [typedAt]: "string",
      [paneRunOptions.collected]: "string",
      [paneRunOptions.collectedBefore]: "string",
      [paneRunOptions.collectedBefore2]: "string"
    })
    const marks = [paneRunOptions.collected, paneRunOptions.collectedBefore, paneRunOptions.collectedBefore2]
    const typed = (!fenced && seen[owner] === run.id) || seen[typedAt] !== "" ||
      marks.some((mark) => markOf(run.id, seen[mark]) !== undefined)
    if (!typed) yield* withdrawTyping(run.id, run.paneId)
    return typed
  }).pipe(Effect.orElseSucceed(() => true))

/**
 * The invocation that types a run failed on its own account (its client timed out, printed too much,
 * or failed): a failure of the wait, which says nothing of the run. The pane says whether the paste
 * was reached (`pasteReached`): not typed, the failure stands; typed, it is answered as a resume's
 * lost waiter is (runAwait.ts `afterLostWaiter`).
 */
const afterLostWait = (
  run: Run,
  generation: number,
  error: LostWait,
  limits: OutputLimits
) =>
  Effect.gen(function*() {
    if (!(yield* pasteReached(run, generation))) return yield* error
    return yield* afterLostWaiter(run, error, limits, true)
  })
