/**
 * The stale-view guard of the invocation that types a run. The view a run types from (a look at the
 * pane, or, on a ready pane, what this process held of it from its previous run there) says the
 * pane's process, that no tmux mode and no alternate screen is up, where the prompt ends, the
 * pane's size and its typing generation (no other run was typed since: domain/runRecord.ts). The
 * typing command list checks that view itself, after the load (the one command of the list that
 * waits) and before the claim and the paste: a `set-option -u` whose option name is a tmux format
 * that expands to a harmless user option when the pane still matches, and to a name that is no
 * option when it does not. tmux then refuses that command (an invalid option: domain/tmuxRefusals.ts)
 * and drops the rest of the list, so nothing is typed; the name carries what tmux saw, so the
 * refusal says what changed. No `if-shell`, no nested command string, nothing that waits.
 */
import { marks, paneRunOptions } from "./protocolNames.ts"
import type { TmuxRefusal } from "./tmuxRefusals.ts"

/** What a run types from, as the guard checks it. @category models */
export interface TypingView {
  readonly panePid: number
  /** Where the prompt ends on its row: the cursor's column at the prompt. */
  readonly cursorX: number
  readonly width: number
  readonly height: number
  /** The pane's typing generation as read (`paneRunOptions.generation`, empty before the first run). */
  readonly generation: string
}

/** The prefix of the name the guard expands to when the pane changed. */
export const staleMark = marks.stale

/** The pane's state in the guard's terms (no commas: they would end the format's condition). */
const seen = "#{pane_pid}:#{pane_in_mode}:#{alternate_on}:#{pane_dead}:#{cursor_x}:#{pane_width}x#{pane_height}:" +
  `g#{${paneRunOptions.generation}}`

const expected = (view: TypingView): string =>
  `${view.panePid}:0:0:0:${view.cursorX}:${view.width}x${view.height}:g${view.generation}`

/** The guard command for `paneId` and `view`. */
export const typingGuard = (paneId: string, view: TypingView) =>
  [
    "set-option",
    "-pu",
    "-t",
    paneId,
    `#{?#{==:${seen},${expected(view)}},${paneRunOptions.viewOk},${staleMark}:${seen}}`
  ] as const

/** What changed, when `refusal` is the guard's; `undefined` for any other failure. */
export const staleChange = (refusal: TmuxRefusal, view: TypingView) => {
  const match = refusal._tag !== "InvalidOption" ? null : new RegExp(
    `^${staleMark}:(-?\\d+):(\\d+):(\\d+):(\\d+):(\\d+):(\\d+)x(\\d+):g([^\\s]*)$`,
    "u"
  ).exec(refusal.option)
  if (match === null) return undefined
  const [panePid, mode, alternate, dead, cursorX, width, height] = match.slice(1, 8).map(Number) as Array<number>
  const generation = match[8]
  const changes = [
    ...(panePid === view.panePid ? [] : [`its process is now ${panePid}, was ${view.panePid} (respawned)`]),
    ...(dead === 1 ? ["its process exited"] : []),
    ...(mode === 1 ? ["it entered copy mode (or another tmux mode)"] : []),
    ...(alternate === 1 ? ["a full-screen program took the alternate screen"] : []),
    ...(cursorX === view.cursorX ? [] : [`the cursor is at column ${cursorX}, was ${view.cursorX} at the prompt`]),
    ...(width === view.width && height === view.height
      ? []
      : [`it is ${width}x${height}, was ${view.width}x${view.height}`]),
    ...(generation === view.generation ? [] : ["another run was typed into it"])
  ]
  return { respawned: panePid !== view.panePid, changes }
}
