/**
 * Where a new run types from: a look at the pane once it is free and its shell at its prompt, or,
 * with no look, the view this process kept of the pane after its last run there.
 */
import * as Effect from "effect/Effect"
import { sliceCells } from "../domain/cells.ts"
import type { PaneId } from "../domain/ids.ts"
import { paneRunOptions } from "../domain/protocolNames.ts"
import { relativeRow } from "../domain/rows.ts"
import { type RunState } from "../domain/runMachine.ts"
import { shellFlagsOf } from "../domain/shellProtocol.ts"
import { type TypingView } from "../domain/typingGuard.ts"
import { PaneNotReady } from "../services/errors.ts"
import { type HeldView, type Run } from "../services/ShellRuns.ts"
import { awaitFreePane, type EarlierRun, earlierRuns, generationOf, readinessLook } from "./paneClaim.ts"
import { kernelProbe, scrollMargin } from "./runHead.ts"
import { awaitReady } from "./runWatch.ts"

/** What a run types from: a look at the pane, or what this process held of it. @category models */
export interface TypingBasis {
  readonly view: TypingView
  readonly tty: string
  readonly shell: string
  readonly prompt: string
  readonly generation: number
  /** The prompt's absolute row when the pane was looked at; -1 without a look (the typed record says). */
  readonly promptRow: number
  /** The relative row the read-back starts at. */
  readonly from: number
  /** The earlier runs to collect, each in the state its head was read in. */
  readonly earlier: ReadonlyArray<{ readonly run: Run; readonly state: RunState; readonly earlier: EarlierRun }>
  /** What in-shell runs left in the shell (see paneRunOptions.shellFlags): "" when none ran in it. */
  readonly shellFlags: string
  /** The pane's `remain-on-exit` as looked at; absent without a look (in-shell runs always look). */
  readonly remainOnExit?: string
  /** The shell's image as looked at (ShellProcess.image); absent without a look. */
  readonly image?: string
}

/** Waits until the pane is free and its shell at its prompt, and types from that look. */
export const lookedBasis = Effect.fn("runBasis.lookedBasis")(function*(paneId: PaneId, deadline: number) {
  const free = yield* awaitFreePane(paneId, deadline)
  const earlier = yield* earlierRuns(paneId, free.look[paneRunOptions.last], free.abandoned)
  // Readiness starts from the look that found the pane free: no second read on a ready pane.
  let fresh: typeof free.look | undefined = free.look
  const look = Effect.suspend(() => {
    const taken = fresh
    fresh = undefined
    return taken === undefined ? readinessLook(paneId) : Effect.succeed(taken)
  })
  const { image, shell, state } = yield* awaitReady(paneId, look, yield* kernelProbe, deadline)
  const promptRow = state.history_size + state.cursor_y
  if (!/^[0-9]{0,15}$/u.test(state[paneRunOptions.generation])) {
    return yield* new PaneNotReady({
      pane: paneId,
      reason: "option-invalid",
      detail:
        `its option ${paneRunOptions.generation} holds ${
          JSON.stringify(state[paneRunOptions.generation].slice(0, 40))
        }, ` +
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
      generation: state[paneRunOptions.generation]
    },
    tty: state.pane_tty,
    shell,
    prompt: sliceCells(state.screen.split("\n")[state.cursor_y] ?? "", state.cursor_x),
    generation: generationOf(state[paneRunOptions.generation]),
    promptRow,
    // Output that scrolls moves the prompt row up before the read: read from a margin above it, so
    // a run that scrolls up to that many rows still needs no second read.
    from: relativeRow(promptRow - scrollMargin, state.history_size),
    earlier,
    shellFlags: shellFlagsOf(state[paneRunOptions.shellFlags], state.pane_pid),
    remainOnExit: state["remain-on-exit"],
    ...(image === undefined ? {} : { image })
  } satisfies TypingBasis
})

/** Types from what this process held of the pane: no look; the typing list's guard checks it. */
export const heldBasis = (held: HeldView): TypingBasis => ({
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
