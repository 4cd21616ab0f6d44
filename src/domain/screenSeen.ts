/**
 * Which answers of a run a pager or full-screen program seen by its watcher makes `output_is_screen`
 * name (docs/control-loop.md, "Output that says what it is"): those whose rows it showed. That is
 * the answer whose watcher saw it hold the keyboard; a later one read while the alternate screen it
 * was seen on is still up; and, for one that drew on the main screen (`less -X`, git's pager with
 * `LESS=FRX`), the first answer after, whose rows start where that answer ended and may be what it
 * drew since. An answer read once a program of the alternate screen left is the stream again:
 * `vi f && cat f` after vi quit is cat's output. Pure: the run keeps what is carried forward.
 */
import type { ScreenReason } from "./keyboard.ts"

/** A program a watcher saw hold the keyboard, and whether the alternate screen was up then. @category models */
export interface ScreenSeen {
  readonly reason: ScreenReason
  readonly alternate: boolean
}

/**
 * The screen reasons of one answer and what the run carries to the next: `earlier`, what the run
 * carried to this answer; `read`, the reasons the read itself gave (`alternate-screen` when it was
 * up); `seen`, what this answer's watcher saw hold the keyboard.
 */
export const screenOfAnswer = (
  earlier: ReadonlyArray<ScreenSeen>,
  read: ReadonlyArray<ScreenReason>,
  seen?: ScreenReason
): { readonly screen: ReadonlyArray<ScreenReason>; readonly carried: ReadonlyArray<ScreenSeen> } => {
  const alternate = read.includes("alternate-screen")
  // Seen on the alternate screen: while it is still up. Seen on the main screen: this answer, then no more.
  const applies = earlier.filter((entry) => !entry.alternate || alternate)
  const kept = earlier.filter((entry) => entry.alternate && alternate)
  const now: ReadonlyArray<ScreenSeen> = seen === undefined ? [] : [{ reason: seen, alternate }]
  const carried = [...kept, ...now].filter((entry, i, all) =>
    all.findIndex((other) => other.reason === entry.reason && other.alternate === entry.alternate) === i
  )
  return {
    screen: [...new Set([...applies.map((entry) => entry.reason), ...now.map((entry) => entry.reason), ...read])],
    carried
  }
}
