/**
 * Who holds a pane (domain/runRecord.ts): the readiness look with the pane's claim, waiting until
 * no other run holds it, the earlier runs a new run reports, and the refusal that names a holder.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { PaneId } from "../domain/ids.ts"
import { type BlockKind } from "../domain/keyboard.ts"
import { claimStep, freshMemory } from "../domain/paneTurn.ts"
import { replacedBy, runsShell } from "../domain/paneView.ts"
import { generationOfOption, marks, paneRunOptions, runIdPattern, runOfOption } from "../domain/protocolNames.ts"
import { quitAdvice } from "../domain/quitAdvice.ts"
import { commandsOf, type RunState, stateOnPane } from "../domain/runMachine.ts"
import { parseEndRecord, parseStartMark } from "../domain/runPositions.ts"
import { recordOf, type RunRecord } from "../domain/runRecord.ts"
import { showsPrompt } from "../domain/shellProtocol.ts"
import { thisTag } from "../platform/thisInstance.ts"
import { PaneNotReady, type ProgramError } from "../services/errors.ts"
import { PaneProcess } from "../services/PaneProcess.ts"
import { type HeldView, type Run } from "../services/ShellRuns.ts"
import { PaneCommand } from "../services/Tmux.ts"
import { reads } from "../services/TmuxReads.ts"
import { keyboardHolderOf, kindText, secretRemedy } from "./keyboardHolder.ts"
import { orPaneNotFound, stateFields } from "./pane.ts"
import { headOfRun, kernelProbe } from "./runHead.ts"
import { timings } from "./runWatch.ts"

export const runFields = {
  ...stateFields,
  pane_tty: "string",
  [paneRunOptions.claim]: "string",
  [paneRunOptions.last]: "string",
  [paneRunOptions.generation]: "string",
  // The claim's run whose open input C-c did not cancel (see openInput.ts).
  [paneRunOptions.openInput]: "string",
  // What in-shell runs left in the shell (see paneRunOptions.shellFlags), and whether an exit keeps the pane.
  [paneRunOptions.shellFlags]: "string",
  "remain-on-exit": "string"
} as const

/** The pane's typing generation as read (see domain/runRecord.ts); 0 before the first run. */
export const generationOf = (value: string): number => /^[0-9]{1,15}$/u.test(value) ? Number(value) : 0

/**
 * The readiness look: the pane's state and its screen, in one invocation (the prompt row's cells
 * before the cursor are what the typed row shows if the terminal does not echo).
 */
export const readinessLook = (paneId: PaneId) =>
  Effect.flatMap(reads, (tmux) => tmux.paneAndCapture(paneId, runFields, ["-N", "-S", "0", "-E", "-"])).pipe(
    Effect.map(({ state, captured }) => ({ ...state, screen: captured })),
    orPaneNotFound(paneId)
  )

/** How long a held view waits for its shell to be back at its prompt (a run that just returned). */
export const heldViewWait = 100

/**
 * Whether a run may type from what this process held of the pane, with no look: /proc shows the
 * same process, the same shell, asleep reading its terminal in the terminal's foreground, now or
 * within `heldViewWait`. `false` when it cannot tell (the process gone, unseen, busy): the caller
 * looks at the pane as on first contact. /proc reads only; no tmux invocation.
 */
export const readyAsHeld = Effect.fn("paneClaim.readyAsHeld")(function*(view: HeldView, deadline: number) {
  const processes = yield* PaneProcess
  const until = Math.min(deadline, (yield* Clock.currentTimeMillis) + heldViewWait)
  while (true) {
    const shell = yield* processes.shell(view.panePid, view.tty)
    if (
      shell === undefined || shell.unseen !== undefined || shell.comm !== view.shell ||
      (shell.program !== undefined && !runsShell(shell.comm, shell.program))
    ) return false
    if (shell.reading && shell.inForeground) return true
    const now = yield* Clock.currentTimeMillis
    if (now >= until) return false
    yield* Effect.sleep(Math.max(1, Math.min(timings.readyPoll, until - now)))
  }
})

/**
 * How long the program in front of a held run must be seen holding the keyboard, its screen
 * unchanged, before the next command is refused (shorter than the watcher's `blockedAfter`: the
 * refusal types nothing, and a call made again waits anew).
 */
export const heldStill = 200

/** The earlier run of a pane that a new run found and collected. @category models */
export interface EarlierRun {
  readonly run_id: string
  /** Its exit status; null when it never reported one (its trailer never ran). */
  readonly exit_status: number | null
}

/**
 * Waits until no other run holds the pane (see domain/runRecord.ts), whichever server instance
 * typed it, and returns the look at the free pane. A claim whose run can no longer report (its
 * pane's process changed, or its shell sat idle at its prompt without the run's status report) is
 * released once, by the one caller that takes its successor option, with C-c for any open input;
 * that run is returned as `abandoned`. A run whose program in front holds the keyboard (the kernel
 * shows it reading the terminal, the screen still for `heldStill`) waits for an answer, not for
 * time: refused at once, naming it. At the deadline, refuses naming the run that holds the pane.
 */
export const awaitFreePane = Effect.fn("paneClaim.awaitFreePane")(function*(paneId: PaneId, deadline: number) {
  const kernel = yield* kernelProbe
  let memory = freshMemory
  let abandoned: string | undefined
  let blocked: { readonly program: string; readonly since: number; readonly rows: ReadonlyArray<string> } | undefined
  while (true) {
    const look = yield* readinessLook(paneId)
    const claim = look[paneRunOptions.claim]
    if (claim === "") return { look, abandoned }
    if (!runIdPattern.test(claim)) {
      return yield* new PaneNotReady({
        pane: paneId,
        reason: "option-invalid",
        detail: `its option ${paneRunOptions.claim} holds ${JSON.stringify(claim.slice(0, 40))}, ` +
          "which is no run's ID; nothing was typed",
        remedy: "unset the option (set-option -pu) if nothing runs there, or use another pane"
      })
    }
    const head = yield* headOfRun(paneId, claim)
    const recorded = recordOf(head.runRecord, paneId, claim)
    const shell = yield* kernel.shell(look.pane_pid)
    const prompted = recorded !== undefined &&
      showsPrompt(recorded.run.prompt, look.screen.split("\n")[look.cursor_y] ?? "", look.cursor_x)
    // Its open input, which C-c did not cancel, is still open: anything typed would join it.
    if (
      look[paneRunOptions.openInput] === claim && recorded?.run.panePid === look.pane_pid && !prompted &&
      head.endRecord === ""
    ) return yield* openInputRefusal(recorded)
    // An in-shell run's shell reads the terminal itself for the command (`read`): that is the run
    // waiting for input, not its shell back at the prompt (which draws the prompt again).
    const readsForRun = recorded?.run.inShell === true && parseStartMark(head.mark) !== undefined && !prompted
    const now = yield* Clock.currentTimeMillis
    const decided = claimStep(
      {
        claim,
        // Its status report came (or it was collected) since the look when it is not pending.
        pending: recorded !== undefined && head.endRecord === "",
        recordedPid: recorded?.run.panePid,
        panePid: look.pane_pid,
        replaced: recorded?.run.inShell === true && shell !== undefined &&
          replacedBy(recorded.run, shell) !== undefined,
        idle: shell?.reading === true && shell.inForeground && !readsForRun
      },
      memory,
      now,
      deadline,
      timings.idleAfter
    )
    memory = decided.memory
    if (decided.step === "LookAgain") continue
    if (decided.step === "Release") {
      const release = { _tag: "Released", successor: String(process.pid) } as const
      // From the `Held` the claim names (a forged claim names a run recorded on another pane, read as
      // `Free`); the successor's `-o` and the record guard refuse a release whose state moved since.
      const released = yield* (yield* PaneCommand).run(
        commandsOf({ _tag: "Held", run: { id: claim, paneId } }, release)
      ).pipe(
        Effect.as(true),
        // Another caller released it first, or released and collected it since the look.
        Effect.catchIf((error) => isClaimTaken(error) || isCollected(error), () => Effect.succeed(false))
      )
      if (released) abandoned = claim
      continue
    }
    if (decided.step === "Refuse") return yield* claimRefusal(recorded!)
    // Who holds the keyboard is decided as readiness decides it: from the kernel, whichever instance typed the run.
    const rows = look.screen.split("\n")
    const holder = yield* keyboardHolderOf(look, shell, kernel, blocked?.rows)
    blocked = holder === undefined
      ? undefined
      : blocked?.program === holder.program && blocked.rows.join("\n") === look.screen
      ? blocked
      : { program: holder.program, since: now, rows }
    if (holder !== undefined && blocked !== undefined && now - blocked.since >= heldStill) {
      return yield* blockedRefusal(recorded!, holder)
    }
    yield* Effect.sleep(Math.max(1, Math.min(timings.watchPoll, deadline - now)))
  }
})

/**
 * The earlier runs a new run collects as it types: the last run of the pane if its status report
 * came, and a run whose claim this call released.
 */
export const earlierRuns = Effect.fn("paneClaim.earlierRuns")(
  function*(paneId: PaneId, last: string, abandoned: string | undefined) {
    const found: Array<{ readonly run: Run; readonly state: RunState; readonly earlier: EarlierRun }> = []
    for (const runId of new Set([abandoned ?? "", last])) {
      if (!runIdPattern.test(runId)) continue
      let head = yield* headOfRun(paneId, runId)
      // Only a record of this pane's own run: a forged one naming another pane's run collects nothing.
      let recorded = recordOf(head.runRecord, paneId, runId)
      // Another server's run that just ended is its call's to read and collect, which it does at
      // once (its output goes only to that answer): it gets a moment first, and a run nobody
      // collects in it (a call that gave up, a server gone) is collected here.
      for (
        let waited = 0;
        runId !== abandoned && recorded !== undefined && recorded.tag !== thisTag &&
        parseEndRecord(head.endRecord) !== undefined && waited < ownerGraceMs;
        waited += ownerPollMs
      ) {
        yield* Effect.sleep(ownerPollMs)
        head = yield* headOfRun(paneId, runId)
        recorded = recordOf(head.runRecord, paneId, runId)
      }
      const end = parseEndRecord(head.endRecord)
      if (recorded === undefined || (runId !== abandoned && end === undefined)) continue
      found.push({
        run: recorded.run,
        state: stateOnPane(head, recorded.run),
        earlier: { run_id: runId, exit_status: end?.status ?? null }
      })
    }
    return found
  }
)

/** How long another server's ended run is left to its own call, and how often it is looked at meanwhile. */
const ownerGraceMs = 300
const ownerPollMs = 10

/** The option tmux refused to set again (`set-option -o`), when that is the failure. */
const alreadySet = (error: ProgramError): string | undefined =>
  error._tag === "TmuxCommandFailed" && error.refusal._tag === "AlreadySet" ? error.refusal.option : undefined

/** Whether another run took the claim, its successor or the generation first (each set with `-o`). */
export const isClaimTaken = (error: ProgramError): boolean => {
  const option = alreadySet(error)
  return option !== undefined && (option === paneRunOptions.claim || runOfOption("successor", option) !== undefined ||
    generationOfOption(option) !== undefined)
}

/** Whether a list's collection guard refused: the run's record is gone (another call collected it). */
export const isCollected = (error: ProgramError): boolean =>
  error._tag === "TmuxCommandFailed" && error.refusal._tag === "InvalidOption" &&
  error.refusal.option === marks.collected

/** Whether it was the generation that was taken: the claim just before it is then this run's. */
export const isGenerationTaken = (error: ProgramError): boolean =>
  ((option) => option !== undefined && generationOfOption(option) !== undefined)(alreadySet(error))

/** A run whose open input C-c did not cancel holds the pane until a new shell or its prompt is back. */
const openInputRefusal = (held: RunRecord) =>
  new PaneNotReady({
    pane: held.run.paneId,
    reason: "open-input",
    detail: `run ${held.run.id} (${JSON.stringify(held.command.prefix)}…) left its incomplete input open in the ` +
      "shell, which shows a continuation prompt, and C-c did not cancel it (the shell ignores SIGINT, as after " +
      "trap '' INT): anything typed would join it; nothing was typed",
    remedy: "respawn_pane starts a new shell in the pane (this shell's state is lost); or end the input with " +
      "send_keys until the shell's prompt is back; then call again"
  })

/** Who typed a run, as a refusal names it. */
const runNamed = (held: RunRecord) =>
  `run ${held.run.id} (${JSON.stringify(held.command.prefix)}…, sha256 ${held.command.digest}, typed by ` +
  `server process ${held.instance})`

/** A run whose program in front waits for the keyboard: waiting would not end it, an answer or a quit does. */
const blockedRefusal = (
  held: RunRecord,
  holder: { readonly program: string; readonly kind: BlockKind; readonly executable?: string }
) =>
  new PaneNotReady({
    pane: held.run.paneId,
    reason: "run-held",
    detail: `${runNamed(held)} holds this pane, and ${holder.program} in front of it waits for the keyboard ` +
      `(${kindText[holder.kind]}); nothing was typed`,
    remedy: holder.kind === "secret"
      ? `${secretRemedy}; then call run_shell_command with resume "${held.run.id}"`
      : `answer it (run_shell_command with resume "${held.run.id}" and answer, or send_keys then resume), or ` +
        `quit it with ${quitAdvice(holder.kind, [holder.program, holder.executable], "answer")}, and call again`
  })

export const claimRefusal = (held: RunRecord) =>
  new PaneNotReady({
    pane: held.run.paneId,
    reason: "run-held",
    detail: `${runNamed(held)} still holds this pane: it runs, waits for input, or timed out; nothing was typed`,
    remedy: `call run_shell_command with resume "${held.run.id}" to wait for it and get its exit status; ` +
      "or interrupt it (send_keys C-c with enter false) and call again"
  })
