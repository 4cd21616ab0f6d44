/**
 * The pacing of a waiting loop's looks at a pane, as a pure state machine (src/layers/
 * PaneActivityLive.ts runs it with a kernel signal and the Clock). A look is due when something
 * may have changed since the last one: the signal says so, or it cannot tell. Looks that find
 * nothing new space out (up to `maxGapMs`), so a pane the signal cannot tell about, or whose tmux
 * server is busy with other panes, costs a few looks a second; one look in `refreshMs` happens
 * whatever the signal says. The loop's own ticks (a timer and a signal read, a fraction of a
 * millisecond each) slow down once nothing has changed for a while.
 */

/** Timings of the pacing, in milliseconds. */
export const pacing = {
  /** The tick while something changed lately. */
  busyTickMs: 20,
  /** The tick once nothing changed for `quietAfterMs`: half of it is the answer's mean delay. */
  quietTickMs: 50,
  quietAfterMs: 1_000,
  /**
   * The tick once nothing changed for `restAfterMs`: a long idle wait wakes half as often. Each tick
   * (a timer's wakeup and two /proc reads) costs about 0.6 ms of processor time on a small VM, so a
   * 10 s idle wait took 1.6% of a core at 50 ms and takes 0.8% so (bench/idle-wait.ts); the answer's
   * mean delay after such a quiet grows by 25 ms.
   */
  restTickMs: 100,
  restAfterMs: 2_000,
  /** The first spacing after a look that found nothing new; doubled after each further one. */
  firstGapMs: 20,
  /** How far apart looks may be while they find nothing new. */
  maxGapMs: 160,
  /**
   * The longest time without a look, whatever the signal says (a change the server's reads do not show:
   * a resize's reflow, a history cleared). Each look is a tmux client, a process start: 2 s cost an idle
   * wait about 0.5% of a core more than 5 s.
   */
  refreshMs: 5_000
}

/** Where a loop's pacing stands. @category models */
export interface Pace {
  /** A change was signalled (or could not be ruled out) since the last look. */
  readonly pending: boolean
  /** Looks in a row that found nothing new. */
  readonly quiet: number
  readonly lastLookAt: number | undefined
  readonly lastKey: string | undefined
  /** When a change was last signalled or seen. */
  readonly changedAt: number | undefined
}

/** A loop that has not looked yet: its first tick is due. @category constructors */
export const freshPace: Pace = {
  pending: true,
  quiet: 0,
  lastLookAt: undefined,
  lastKey: undefined,
  changedAt: undefined
}

/** How long after a look the next may come, once `quiet` looks in a row found nothing new. */
export const gapAfter = (quiet: number): number =>
  quiet === 0 ? 0 : Math.min(pacing.maxGapMs, pacing.firstGapMs * 2 ** Math.min(quiet - 1, 16))

/**
 * The pace after a tick at `now` whose signal said `signal` (`undefined`: it cannot tell), and
 * whether that tick looks.
 */
export const tick = (pace: Pace, now: number, signal: boolean | undefined): { pace: Pace; due: boolean } => {
  const next = {
    ...pace,
    pending: pace.pending || signal !== false,
    changedAt: signal === true || pace.changedAt === undefined ? now : pace.changedAt
  }
  if (pace.lastLookAt === undefined) return { pace: next, due: true }
  const since = now - pace.lastLookAt
  return { pace: next, due: since >= pacing.refreshMs || (next.pending && since >= gapAfter(pace.quiet)) }
}

/**
 * The pace after a look at `now` that saw `key`. A look the signal did not ask for (a refresh)
 * that found nothing new leaves the spacing as it was: the signal stays trusted.
 */
export const afterLook = (pace: Pace, now: number, key: string): Pace => {
  const same = pace.lastKey === key
  return {
    pending: false,
    quiet: !same ? 0 : pace.pending ? pace.quiet + 1 : pace.quiet,
    lastLookAt: now,
    lastKey: key,
    changedAt: same ? pace.changedAt : now
  }
}

/** How long the loop sleeps before its next tick. */
export const tickAfter = (pace: Pace, now: number): number => {
  const quietFor = pace.changedAt === undefined ? 0 : now - pace.changedAt
  return quietFor >= pacing.restAfterMs
    ? pacing.restTickMs
    : quietFor >= pacing.quietAfterMs
    ? pacing.quietTickMs
    : pacing.busyTickMs
}
