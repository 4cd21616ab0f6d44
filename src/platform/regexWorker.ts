/**
 * The code of a regex worker thread, and the messages it exchanges. RE2 runs there, never on the
 * main thread, so a costly pattern delays nothing but its own call, and terminating the thread
 * stops it at once. The code is a string (an `eval` worker) so that it works the same from the
 * bundle, from `dist/`, from the sources and in the single executable; it loads re2js from the path
 * the main thread resolved, or holds it inlined where there is no file to load (the executable).
 */

/** What the worker gets once. @category models */
export interface WorkerSettings {
  /** The CommonJS entry of re2js, for a worker that loads it (`loadRe2js`). */
  readonly re2js: string | undefined
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

/** The expression that loads re2js from the file `WorkerSettings.re2js` names. */
export const loadRe2js = "require(workerData.re2js)"

/** The expression that runs re2js's CommonJS build, given as text, as a module of its own. */
export const inlineRe2js = (source: string): string =>
  `(() => {\nconst module = { exports: {} };\n(function (exports) {\n${source}\n})(module.exports);\n` +
  "return module.exports\n})()"

/** The worker's code (CommonJS), with the expression that yields re2js's exports. */
export const workerSource = (re2js: string): string => `
const { parentPort, workerData } = require("node:worker_threads")
const { RE2JS } = ${re2js}
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
