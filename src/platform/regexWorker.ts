/**
 * The code of a regex worker thread, and the messages it exchanges. RE2 runs there, never on the
 * main thread, so a costly pattern delays nothing but its own call, and terminating the thread
 * stops it at once. The code is a string (an `eval` worker) so that it works the same from the
 * bundle, from `dist/` and from the sources; it loads re2js from the path the main thread resolved.
 */

/** What the worker gets once. @category models */
export interface WorkerSettings {
  /** The CommonJS entry of re2js. */
  readonly re2js: string
  readonly maxProgramSize: number
}

/** A job: compile `patterns` (cached per worker), then match each line of `text` when given. @category models */
export interface MatchJob {
  readonly patterns: ReadonlyArray<string>
  readonly flags: number
  /** Lines joined by newlines (one string crosses threads faster than many). */
  readonly text: string | undefined
}

/** The answer: per line the first matching pattern (or -1), or why pattern `failed` cannot be used. @category models */
export type MatchReply =
  | { readonly matches: ReadonlyArray<number> }
  | { readonly failed: number; readonly invalid: string }
  | { readonly failed: number; readonly programSize: number }

/** The worker's code (CommonJS). */
export const workerSource = `
const { parentPort, workerData } = require("node:worker_threads")
const { RE2JS } = require(workerData.re2js)
const compiled = new Map()
const compile = (pattern, flags) => {
  const key = flags + ":" + pattern
  let entry = compiled.get(key)
  if (entry === undefined) {
    try {
      const re = RE2JS.compile(pattern, flags)
      const programSize = re.programSize()
      entry = programSize > workerData.maxProgramSize ? { programSize } : { re }
    } catch (error) {
      entry = { invalid: error instanceof Error ? error.message : String(error) }
    }
    if (compiled.size >= 64) compiled.delete(compiled.keys().next().value)
    compiled.set(key, entry)
  }
  return entry
}
parentPort.on("message", (job) => {
  const entries = job.patterns.map((pattern) => compile(pattern, job.flags))
  const failed = entries.findIndex((entry) => entry.re === undefined)
  if (failed !== -1) {
    const { re, ...reason } = entries[failed]
    return parentPort.postMessage({ failed, ...reason })
  }
  const lines = job.text === undefined ? [] : job.text.split("\\n")
  parentPort.postMessage({ matches: lines.map((line) => entries.findIndex((entry) => entry.re.test(line))) })
})
`
