/**
 * Waiting for a state, not for a time: `until` reads a value again and again until it holds, and
 * fails at its deadline naming what it waited for and the last value it read. The deadline bounds
 * the wait (a machine under load is slow, never wrong); it measures nothing.
 */

/** How long `until` waits at most, and how often it reads. */
export interface PollOptions {
  readonly timeoutMs?: number
  readonly intervalMs?: number
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Reads `read()` until `holds` accepts its value, and returns that value; a read that throws counts as not yet. */
export const until = async <A>(
  what: string,
  read: () => A | Promise<A>,
  holds: (value: A) => boolean = (value) => Boolean(value),
  { timeoutMs = 15_000, intervalMs = 25 }: PollOptions = {}
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  let last: string = "nothing read yet"
  for (;;) {
    try {
      const value = await read()
      if (holds(value)) return value
      last = describe(value)
    } catch (error) {
      last = `a read that failed: ${String(error)}`
    }
    if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}; the last value was ${last}`)
    await pause(intervalMs)
  }
}

const describe = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 2_000 ? `${text.slice(0, 2_000)}...` : text
}
