/**
 * The waiting logic of run_shell_command, written against small probes and the Clock so that it
 * runs under TestClock with a scripted pane as well as live:
 * - `awaitReady`: until the pane's shell is idle at its prompt, nothing is typed;
 * - `watchRun`: while a typed run waits for its completion signal, notice what the signal alone
 *   cannot say: a program waiting for terminal input, the shell back at its prompt without the
 *   run's record, the pane's process gone.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type { PaneId } from "../domain/ids.ts"
import { type BlockKind, classify } from "../domain/keyboard.ts"
import { replacedBy, runsShell } from "../domain/paneView.ts"
import { quitAdvice } from "../domain/quitAdvice.ts"
import { shellKind, supportedShells } from "../domain/shellProtocol.ts"
import { PaneGone, PaneNotReady, type ToolError } from "../services/errors.ts"
import type { FrontProcess, ShellProcess } from "../services/PaneProcess.ts"
import { holderAtReadiness, kindText, screenFacts, secretRemedy } from "./keyboardHolder.ts"
import type { KernelProbe, PaneLook, RunScreen } from "./runLooks.ts"

export type { KernelProbe, PaneLook, RunScreen } from "./runLooks.ts"

/** Timings of the loops, in milliseconds. */
export const timings = {
  /** Readiness polls: /proc reads only, so they can be frequent. */
  readyPoll: 10,
  /** A shell older than this that runs a foreground job is busy, not starting: refuse soon. */
  startingAgeMs: 60_000,
  /** A foreground job in a shell that is past starting may be momentary (a trailer exiting). */
  foregroundGrace: 500,
  watchPoll: 100,
  /** How often the watcher asks tmux (record, alternate screen, dead pane). */
  screenEvery: 500,
  /** How long a program must be seen reading the terminal before the run counts as blocked. */
  blockedAfter: 500,
  /** How long the shell must be seen idle at its prompt, without a record, before the input counts as never run. */
  idleAfter: 300,
  /** How long a line editor that reads with nothing drawn on its row is waited for to draw its prompt. */
  promptGrace: 300
}

/**
 * The pace of a watcher nobody waits on in a call (the `wait` command, a task's watcher): the run's
 * channel brings its end and /proc shows the pane's process gone, so tmux is looked at only when
 * /proc says so (a program at the terminal), and /proc once a second: what stops a run without its
 * end (C-c, a program at the keyboard) is heard a second later, and a minute's wait stays under 1%
 * of a core.
 */
export const backgroundPace = { watchPoll: 1_000, screenEvery: Number.POSITIVE_INFINITY } as const

/** Shells whose line editor draws the prompt, and echoes what is typed, itself. */
const lineEditors = new Set(["bash", "zsh", "fish"])

/** What waiting cannot fix in tmux's view of the pane: it is dead, in a tmux mode, or a full-screen program is up. */
const paneRefusal = (paneId: PaneId, state: PaneLook): PaneGone | PaneNotReady | undefined => {
  if (state.pane_dead) {
    return new PaneGone({
      pane: paneId,
      reason: "is dead (its process exited); respawn it or use another pane"
    })
  }
  if (state.pane_in_mode) {
    return new PaneNotReady({
      pane: paneId,
      reason: "in-mode",
      detail: "it is in copy mode (or another tmux mode), so typed keys would go to the mode; nothing was typed",
      remedy: "leave the mode first (send_keys with keys \"q\" and enter false), then try again"
    })
  }
  if (state.alternate_on) {
    return new PaneNotReady({
      pane: paneId,
      reason: "full-screen",
      detail: `a full-screen program (${state.pane_current_command}) ` +
        "is showing on the alternate screen; nothing was typed",
      remedy: `quit it first, with ${
        quitAdvice("full-screen", [state.pane_current_command], "send_keys")
      }, or run the command in another pane (split_window)`
    })
  }
  return undefined
}

/**
 * What waiting cannot fix in the kernel's view of the pane's process (`comm`, unless `spawning`):
 * its processes cannot be seen from here, or its program is not a shell run_shell_command can drive.
 */
const shellRefusal = (
  paneId: PaneId,
  shell: ShellProcess | undefined,
  comm: string,
  spawning: boolean
): PaneNotReady | undefined => {
  if (shell?.unseen !== undefined) {
    return new PaneNotReady({
      pane: paneId,
      reason: "processes-unseen",
      detail: `the pane's processes cannot be seen from here: ${shell.unseen} (tmux may run in another pid ` +
        "namespace, as in a container sharing its socket); nothing was typed",
      remedy: "use send_keys to type into it, or run this server where tmux's processes are visible"
    })
  }
  if (shellKind(comm) === undefined && !spawning) {
    return new PaneNotReady({
      pane: paneId,
      reason: "not-a-shell",
      detail: `its process is ${
        comm === "" ? "unknown" : comm
      }, which run_shell_command cannot drive (it drives ${supportedShells}); nothing was typed`,
      remedy: "use send_keys to type into it, respawn_pane to replace it with a new shell, or a pane running " +
        "a supported shell"
    })
  }
  // Security: a name is what a program calls itself; the program it runs says what it is.
  if (
    !spawning && shell?.program !== undefined && (!runsShell(comm, shell.program) || shell.systemShell === false)
  ) {
    return new PaneNotReady({
      pane: paneId,
      reason: "not-a-shell",
      detail: `its process is named ${comm} but runs ${shell.program}, which is not a shell ` +
        (shell.systemShell === false
          ? "of this system (not a file /etc/shells lists, the login shell, the pane's SHELL, or one a " +
            "shell's name finds on PATH)"
          : "run_shell_command drives") +
        "; nothing was typed",
      remedy: "use send_keys to type into it, or a pane running a supported shell"
    })
  }
  return undefined
}

/** What keeps the shell from its prompt, as the refusals tell it. */
const busyText = (shell: ShellProcess | undefined, comm: string, spawning: boolean): string =>
  shell === undefined || spawning
    ? "the pane's process is still being started"
    : shell.inForeground
    ? `${comm} is not yet at its prompt (it runs its startup files or a command of its own)`
    : `${shell.foreground} is running in the foreground`

/** The refusal of a pane whose foreground program holds the keyboard (it reads the terminal), not the shell. */
const keyboardHeld = (
  paneId: PaneId,
  holder: { readonly program: string; readonly kind: BlockKind; readonly executable?: string }
) =>
  new PaneNotReady({
    pane: paneId,
    reason: "keyboard-held",
    detail: `${holder.program} is in the foreground and holds the keyboard (${
      kindText[holder.kind]
    }), not a shell at its prompt; nothing was typed`,
    remedy: holder.kind === "secret"
      ? secretRemedy
      : `type into ${holder.program} with send_keys (or quit it with ${
        quitAdvice(holder.kind, [holder.program, holder.executable], "send_keys")
      }), or use another pane`
  })

/** The refusal of a shell busy past starting: something else runs in its foreground. */
const busyRefusal = (paneId: PaneId, busy: string) =>
  new PaneNotReady({
    pane: paneId,
    reason: "busy",
    detail: `${busy}, not the shell at its prompt (perhaps an earlier command still running); nothing was typed`,
    remedy: "wait for it (wait_for_text or capture_since), interrupt " +
      "it (send_keys C-c with enter false), or use another pane"
  })

/** The refusal at the deadline of a shell still starting or busy: nothing was typed, so a retry is safe. */
const timedOutRefusal = (paneId: PaneId, busy: string) =>
  new PaneNotReady({
    pane: paneId,
    reason: "timed-out",
    detail: "its shell is still starting or busy for the whole timeout " +
      `(${busy}); nothing was typed, so calling again is safe`,
    remedy: "call again, with a longer timeout if its startup files are slow"
  })

/**
 * Waits until the pane's shell is itself idle at its prompt, reading its terminal, and returns the
 * pane state read once it was (the prompt row comes from it). Refuses at once what waiting cannot
 * fix (dead pane, a tmux mode, a full-screen program, a shell it cannot drive, a program waiting
 * for terminal input); refuses at the deadline a shell still starting or busy.
 */
export const awaitReady = <S extends PaneLook, R>(
  paneId: PaneId,
  look: Effect.Effect<S, ToolError, R>,
  kernel: KernelProbe,
  deadline: number
) =>
  Effect.gen(function*() {
    const started = yield* Clock.currentTimeMillis
    let state = yield* look
    let lookedAfterWait = true
    let promptSince: number | undefined
    while (true) {
      const refused = paneRefusal(paneId, state)
      if (refused !== undefined) return yield* refused
      const shell = yield* kernel.shell(state.pane_pid, state.pane_tty)
      const comm = shell?.comm ?? state.pane_current_command
      // A pane created a moment ago may still be tmux's own child, before it executes the shell.
      const spawning = comm.startsWith("tmux") && (shell?.ageMs ?? 0) < timings.startingAgeMs
      const notAShell = shellRefusal(paneId, shell, comm, spawning)
      if (notAShell !== undefined) return yield* notAShell
      // Without a kernel view (not Linux), tmux's view that the shell is the pane's process is all there is.
      const now = yield* Clock.currentTimeMillis
      if (!spawning && (shell === undefined || shell.reading)) {
        // A line editor takes the terminal out of canonical mode, then draws its prompt. Before
        // that (a shell draining its output as it leaves a command also sleeps as if reading), the
        // terminal would echo the keys, and the editor again: wait a moment for the prompt.
        promptSince ??= now
        const unprompted = lineEditors.has(comm) && state.cursor_x === 0 && now - promptSince < timings.promptGrace
        // The prompt row must be read after the shell reached its prompt: look once more if we waited.
        if (lookedAfterWait && !unprompted) {
          return { state, shell: comm, ...(shell?.image === undefined ? {} : { image: shell.image }) }
        }
        if (unprompted) yield* Effect.sleep(Math.max(1, Math.min(timings.readyPoll, deadline - now)))
        state = yield* look
        lookedAfterWait = true
        continue
      }
      promptSince = undefined
      const busy = busyText(shell, comm, spawning)
      if (shell !== undefined && !shell.inForeground) {
        const holder = yield* holderAtReadiness(state, shell.foregroundGroup, kernel)
        if (holder !== undefined) return yield* keyboardHeld(paneId, holder)
      }
      const starting = spawning || shell === undefined || shell.inForeground ||
        (shell.ageMs ?? 0) < timings.startingAgeMs
      if (!starting && now - started >= timings.foregroundGrace) return yield* busyRefusal(paneId, busy)
      if (now >= deadline) return yield* timedOutRefusal(paneId, busy)
      yield* Effect.sleep(Math.max(1, Math.min(timings.readyPoll, deadline - now)))
      lookedAfterWait = false
    }
  })

/** Why the watcher stopped watching. @category models */
export type RunEvent =
  | { readonly _tag: "Recorded" }
  /** `executable`: the file name of the program `by` runs, where it could be read (for the quit advice). */
  | { readonly _tag: "Blocked"; readonly by: string; readonly kind: BlockKind; readonly executable?: string }
  | { readonly _tag: "Returned" }
  | { readonly _tag: "Exited" }
  /** The shell an in-shell run was typed into was replaced (`exec`) by `by`. */
  | { readonly _tag: "Replaced"; readonly by: string }

/** A program at the terminal the kernel shows reading it, and the screen as the last look at it saw it. */
type Suspect = {
  readonly program: string
  readonly since: number
  rows?: ReadonlyArray<string>
  changed?: boolean
}

/** What the keyboard rule reads of the foreground's process, before the mode and the screen are read. */
const frontFacts = (front: FrontProcess) => ({
  shellInFront: false,
  program: front.program,
  programIsShell: front.programIsShell,
  wait: front.wait,
  wakes: front.wakes
})

/**
 * Looks at the terminal's mode and the screen while a suspect reads the terminal: the run's end when
 * the look tells it (its record, the pane gone, the suspect blocked on the keyboard), else the suspect
 * with the screen as it was seen (`Undecided`).
 */
const lookAtSuspect = <R>(
  suspect: Suspect,
  front: FrontProcess,
  now: number,
  tty: string,
  kernel: KernelProbe,
  screen: (rows: boolean) => Effect.Effect<RunScreen, ToolError, R>
): Effect.Effect<RunEvent | { readonly _tag: "Undecided"; readonly suspect: Suspect }, ToolError, R> =>
  Effect.gen(function*() {
    const facts = frontFacts(front)
    const first = suspect.rows === undefined
    // A relay (ssh -t, sudo) needs neither the mode nor the rows: only whether the alternate screen is up.
    const relay = facts.wait === "relays"
    const mode = relay ? undefined : yield* kernel.mode(tty)
    const seen = yield* screen(!relay)
    if (seen.recorded) return { _tag: "Recorded" } satisfies RunEvent
    if (seen.dead) return { _tag: "Exited" } satisfies RunEvent
    const drawn = screenFacts(seen, suspect.rows)
    // One change between two looks is a screen arriving (tmux draws what the program wrote a moment
    // later); only a screen that changed at two looks running is being redrawn.
    const redrawn = drawn.changing && suspect.changed === true
    const verdict = classify({ ...facts, mode, screen: { ...drawn, changing: redrawn } })
    // A secret prompt is told at once; the others once they held still (or kept changing) long enough.
    const settled = !first && (redrawn || !drawn.changing)
    const decided = verdict._tag === "Blocked" && (settled || verdict.kind === "secret")
    if (decided) {
      return {
        _tag: "Blocked",
        by: verdict.program,
        kind: verdict.kind,
        ...(front.executable === undefined ? {} : { executable: front.executable })
      } satisfies RunEvent
    }
    return {
      _tag: "Undecided",
      suspect: {
        program: facts.program,
        since: first ? suspect.since : now,
        rows: seen.rows ?? [],
        changed: !first && drawn.changing
      }
    } as const
  })

/**
 * Watches a typed run until something other than its completion signal decides it. Never ends on
 * its own while the run simply runs: the caller races it against the signal and the deadline. The
 * kernel is read every poll (no tmux); the terminal's mode and the screen's rows only while a
 * process of the foreground is seen at the terminal (domain/keyboard.ts decides). `typed`, for an
 * in-shell run, is the shell it was typed into: another program under the pane's pid replaced it.
 */
export const watchRun = <R>(
  panePid: number,
  tty: string,
  kernel: KernelProbe,
  screen: (rows: boolean) => Effect.Effect<RunScreen, ToolError, R>,
  typed?: { readonly shell: string; readonly image?: string | undefined },
  // A watcher beside a waiting client that sees the end (src/wait.ts) looks less often.
  pace: Pick<typeof timings, "watchPoll" | "screenEvery"> = timings
): Effect.Effect<RunEvent, ToolError, R> =>
  Effect.gen(function*() {
    let nextScreen = (yield* Clock.currentTimeMillis) + pace.screenEvery
    let idleSince: number | undefined
    // When a look first saw the paste come. The shell idle before then may not have read it yet (starved of
    // CPU, its input still queued), so it counts as returned only once idle for idleAfter after that look.
    let typedSeenAt: number | undefined
    let replacedSince: number | undefined
    let suspect: Suspect | undefined
    while (true) {
      yield* Effect.sleep(pace.watchPoll)
      const now = yield* Clock.currentTimeMillis
      const shell = yield* kernel.shell(panePid)
      const by = typed === undefined || shell === undefined ? undefined : replacedBy(typed, shell)
      if (by !== undefined) {
        // Told once the new program reads the terminal (a shell's prompt drawn), or after a moment.
        replacedSince ??= now
        if (shell?.reading !== true && now - replacedSince < timings.blockedAfter) continue
        const seen = yield* screen(false)
        if (seen.recorded) return { _tag: "Recorded" } satisfies RunEvent
        if (seen.dead) return { _tag: "Exited" } satisfies RunEvent
        return { _tag: "Replaced", by } satisfies RunEvent
      }
      replacedSince = undefined
      if (shell?.reading === true) {
        idleSince ??= now
        if (now - Math.max(idleSince, typedSeenAt ?? idleSince) >= timings.idleAfter) {
          const seen = yield* screen(false)
          if (seen.recorded) return { _tag: "Recorded" } satisfies RunEvent
          // A shell idle before the paste came (its typing client is slow to start) is no run returned.
          if (seen.typed === false) idleSince = undefined
          else if (typedSeenAt !== undefined) return { _tag: "Returned" } satisfies RunEvent
          else typedSeenAt = now
        }
      } else {
        idleSince = undefined
      }
      const front = shell !== undefined && !shell.inForeground
        ? yield* kernel.front(panePid, shell.foregroundGroup, tty)
        : undefined
      if (
        front !== undefined && classify({ ...frontFacts(front), mode: undefined, screen: undefined })._tag === "Suspect"
      ) {
        if (suspect?.program !== front.program) suspect = { program: front.program, since: now }
        if (suspect.rows === undefined || now - suspect.since >= timings.blockedAfter) {
          const looked = yield* lookAtSuspect(suspect, front, now, tty, kernel, screen)
          if (looked._tag !== "Undecided") return looked
          suspect = looked.suspect
          nextScreen = now + pace.screenEvery
        }
        continue
      }
      suspect = undefined
      if (now >= nextScreen || shell === undefined) {
        nextScreen = now + pace.screenEvery
        const seen = yield* screen(false)
        if (seen.recorded) return { _tag: "Recorded" } satisfies RunEvent
        if (seen.dead) return { _tag: "Exited" } satisfies RunEvent
        if (seen.typed !== false) typedSeenAt ??= now
      }
    }
  })
