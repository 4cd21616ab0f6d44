/**
 * When the server collects garbage between calls (see heap.ts for why), apart from the timers and
 * the collection itself, so that the policy runs on virtual time in tests.
 */

/** What the collector needs from its host: clock, timers, the heap in use, the collection; tests pass virtual ones. */
export interface CollectorHost {
  now(): number
  /** The bytes in use now: the heap's, and the buffers it holds outside it. */
  heapUsed(): number
  later(run: () => void, ms: number): { cancel(): void }
  /** Runs after the response in hand has been written. */
  afterResponse(run: () => void): void
  collect(): void
}

/**
 * Collections come at most this often while calls keep coming, and this long after the last call, and
 * only once the heap has grown this much since the last one: a trickle of small calls (a pane view
 * polling once a second) would otherwise pay a full collection for every call.
 */
export const collectorTimings = { spacingMs: 2000, idleMs: 1000, growthBytes: 2 * 1024 * 1024 }

/**
 * The policy, called after each call: when the heap has grown enough since the last collection,
 * collects right after the response when the spacing has passed since the last collection and no
 * call is running, and otherwise once no call ended for the idle time. `busy` says whether a call is
 * running.
 */
export const makeCollector = (host: CollectorHost, timings = collectorTimings) => {
  let pending: { cancel(): void } | undefined
  let collected = host.now()
  let heapAfter = host.heapUsed()
  const collectNow = () => {
    collected = host.now()
    host.collect()
    heapAfter = host.heapUsed()
  }
  return (busy: () => boolean): void => {
    pending?.cancel()
    pending = undefined
    // The baseline follows the heap down: one read while a large answer was still live must not raise it.
    const heap = host.heapUsed()
    heapAfter = Math.min(heapAfter, heap)
    if (heap - heapAfter < timings.growthBytes) return
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
