/**
 * Waiting for a state, not for a time: `until` reads a value again and again until it holds, and
 * fails at its deadline naming what it waited for and the last value it read. The deadline bounds
 * the wait (a machine under load is slow, never wrong); it measures nothing.
 */
import { readdirSync, readFileSync } from "node:fs"

/** How long `until` waits at most, and how often it reads. */
export interface PollOptions {
  readonly timeoutMs?: number
  readonly intervalMs?: number
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

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

/**
 * A deliberate window in which something must not happen ("no tmux client is started", "the wait
 * does not answer"): `holds` is checked through `window` (a time, or until a promise settles),
 * every `intervalMs` and once more at its end, and the first time it does not hold fails the test
 * naming `what`. The window is what the test asserts about; to wait for a state, use `until`.
 * End-to-end and integration tests pause only through this or `until`.
 */
export const holdsFor = async (
  window: number | Promise<unknown>,
  what: string,
  holds: () => boolean | Promise<boolean>,
  { intervalMs = 25 }: Pick<PollOptions, "intervalMs"> = {}
): Promise<void> => {
  let over = false
  const ends = typeof window === "number" ? pause(window) : window
  void ends.then(() => (over = true), () => (over = true))
  for (;;) {
    const last = over
    if (!(await holds())) {
      throw new Error(`expected through ${typeof window === "number" ? `${window} ms` : "the window"}: ${what}`)
    }
    if (last) return
    await Promise.race([pause(intervalMs), ends.catch(() => undefined)])
  }
}

/** Whether `promise` is still pending, as a check for `holdsFor` ("the call does not answer"). */
export const stillPending = (promise: Promise<unknown>): () => boolean => {
  let pending = true
  void promise.then(() => (pending = false), () => (pending = false))
  return () => pending
}

/** The processes whose parent is `pid`, with their argument lists (read from /proc). */
export const childProcesses = (pid: number): Array<{ readonly pid: number; readonly args: ReadonlyArray<string> }> =>
  readdirSync("/proc").filter((name) => /^\d+$/u.test(name)).flatMap((name) => {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8")
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      if (parent !== pid) return []
      const args = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").filter((arg) => arg !== "")
      return [{ pid: Number(name), args }]
    } catch {
      // Gone while we looked.
      return []
    }
  })

/** Waits until the server process `serverPid` runs `tmux wait-for` on a channel `channel` names; the waiter's pid. */
export const waiterOf = async (serverPid: number | null | undefined, channel: string | RegExp): Promise<number> => {
  // An in-process server (support/inProcess.ts) has no process of its own to look under.
  if (serverPid === undefined) throw new Error("waiterOf needs the server's process: connect to the built server")
  const named = (name: string | undefined) =>
    name !== undefined && (typeof channel === "string" ? name === channel : channel.test(name))
  const waiters = () =>
    childProcesses(serverPid ?? 0).filter(({ args }) => args.some((arg, i) => arg === "wait-for" && named(args[i + 1])))
  return (await until(`a tmux wait-for ${channel} of the server`, waiters, (found) => found.length > 0))[0]!.pid
}

/** The process runs (it exists and is not a zombie waiting to be reaped). */
export const running = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z"
  } catch {
    return false
  }
}

/** The processes whose environment names `text` (a test's folder), as `.ci/run` looks for them after a run. */
export const processesNaming = (text: string): Array<number> =>
  readdirSync("/proc").filter((name) => /^\d+$/u.test(name)).flatMap((name) => {
    try {
      return readFileSync(`/proc/${name}/environ`, "utf8").includes(text) ? [Number(name)] : []
    } catch {
      return []
    }
  })
