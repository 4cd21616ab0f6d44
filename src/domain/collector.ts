/**
 * When the server collects garbage between calls (see heap.ts for why), apart from the timers and
 * the collection itself, so that the policy runs on virtual time in tests.
 */

/** What the collector needs from its host: a clock, timers and the collection; tests pass virtual ones. */
export interface CollectorHost {
  now(): number
  later(run: () => void, ms: number): { cancel(): void }
  /** Runs after the response in hand has been written. */
  afterResponse(run: () => void): void
  collect(): void
}

/** Collections come at most this often while calls keep coming, and this long after the last call. */
export const collectorTimings = { spacingMs: 2000, idleMs: 1000 }

/**
 * The policy, called after each call: collects right after the response when the spacing has
 * passed since the last collection and no call is running, and otherwise once no call ended for
 * the idle time. `busy` says whether a call is running.
 */
export const makeCollector = (host: CollectorHost, timings = collectorTimings) => {
  let pending: { cancel(): void } | undefined
  let collected = host.now()
  const collectNow = () => {
    collected = host.now()
    host.collect()
  }
  return (busy: () => boolean): void => {
    pending?.cancel()
    pending = undefined
    const spaced = () => host.now() - collected > timings.spacingMs
    if (spaced()) {
      // Asked again before the response is out (two calls ending together): one collection.
      host.afterResponse(() => busy() || !spaced() ? undefined : collectNow())
      return
    }
    pending = host.later(() => {
      pending = undefined
      if (!busy()) collectNow()
    }, timings.idleMs)
  }
}
