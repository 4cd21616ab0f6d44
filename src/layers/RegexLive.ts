/**
 * RE2 through re2js (a pure-JavaScript port: linear time, no native build), run on a small pool of
 * worker threads with a time budget per job: the main thread keeps answering while a pattern is
 * matched, and a job past its budget, or whose call is cancelled, ends with its thread. Literal
 * patterns are plain substring tests on the main thread (so `[`, `*` and `\` match themselves).
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Semaphore from "effect/Semaphore"
import { createRequire } from "node:module"
import { availableParallelism } from "node:os"
import { Worker } from "node:worker_threads"
import { assetText, packaged } from "../platform/packaged.ts"
import {
  inlineRe2js,
  loadRe2js,
  type MatchJob,
  type MatchReply,
  type WorkerSettings,
  workerSource
} from "../platform/regexWorker.ts"
import {
  type LineMatcher,
  type MatchOptions,
  maxPatternLength,
  maxProgramSize,
  PatternInvalid,
  PatternTooCostly,
  Regex
} from "../services/Regex.ts"

/**
 * Time to compile the patterns of one call: the largest programs re2js builds take about a second of
 * CPU, and on a loaded machine several times that (a compile runs in a worker: the server answers
 * meanwhile). Past it a pattern is refused as too costly to compile, not by its program size.
 */
const compileBudgetMs = 10_000

/** re2js flag values (RE2JS.CASE_INSENSITIVE), so the main thread need not load re2js. */
const caseInsensitive = 1

/** A crashed or stopped worker's answer. */
type Outcome = MatchReply | { readonly crashed: string }

/** Worker threads for regex jobs: at most `size` at once, idle ones kept for the next job. */
const makePool = (size: number) =>
  Effect.gen(function*() {
    // The single executable has no re2js file to load: its worker code holds re2js (an asset) inlined.
    const settings: WorkerSettings = {
      re2js: packaged ? undefined : createRequire(import.meta.url).resolve("re2js"),
      maxProgramSize
    }
    const code = workerSource(packaged ? inlineRe2js(assetText("re2js.cjs")) : loadRe2js)
    const permits = yield* Semaphore.make(size)
    const idle: Array<Worker> = []
    const live = new Set<Worker>()
    const spawn = () => {
      const worker = new Worker(code, {
        eval: true,
        workerData: settings,
        resourceLimits: { maxOldGenerationSizeMb: 256 }
      })
      // A worker never keeps the process alive: shutdown does not wait for a job.
      worker.unref()
      live.add(worker)
      return worker
    }
    const retire = (worker: Worker) =>
      Effect.sync(() => {
        live.delete(worker)
        void worker.terminate()
      })
    const exchange = (worker: Worker, job: MatchJob) =>
      Effect.callback<Outcome>((resume) => {
        const answer = (outcome: Outcome) => {
          cleanup()
          resume(Effect.succeed(outcome))
        }
        const onMessage = (reply: MatchReply) => answer(reply)
        const onError = (error: Error) => answer({ crashed: error.message })
        const onExit = () => answer({ crashed: "the matching thread exited" })
        const cleanup = () => {
          worker.off("message", onMessage)
          worker.off("error", onError)
          worker.off("exit", onExit)
        }
        worker.on("message", onMessage)
        worker.on("error", onError)
        worker.on("exit", onExit)
        worker.postMessage(job)
        return Effect.sync(cleanup)
      })
    yield* Effect.addFinalizer(() => Effect.sync(() => [...live].forEach((worker) => void worker.terminate())))
    /** Runs a job within `budgetMs` of getting a thread; None when the budget ran out. */
    const run = (job: MatchJob, budgetMs: number): Effect.Effect<Option.Option<Outcome>> =>
      permits.withPermit(Effect.acquireUseRelease(
        Effect.sync(() => idle.pop() ?? spawn()),
        (worker) => exchange(worker, job).pipe(Effect.timeoutOption(Math.max(1, budgetMs))),
        (worker, exit) =>
          Exit.isSuccess(exit) && Option.isSome(exit.value) && !("crashed" in exit.value.value)
            ? Effect.sync(() => void idle.push(worker))
            : retire(worker)
      ))
    return run
  })

const tooLong = new PatternInvalid({ reason: `a pattern may be at most ${maxPatternLength} characters` })

/** Why pattern `failed` of a compile job cannot be used. */
const rejection = (patterns: ReadonlyArray<string>, reply: Extract<MatchReply, { failed: number }>) => {
  const which = patterns.length > 1 ? `pattern ${reply.failed + 1}: ` : ""
  return new PatternInvalid({
    reason: "invalid" in reply
      ? `${which}${reply.invalid} (RE2 syntax: no backreferences or lookaround)`
      : `${which}it compiles to a program of ${reply.programSize} ` +
        `instructions, more than the ${maxProgramSize} allowed ` +
        "(repetition counts multiply: x{0,1000} is about 2,000); use smaller or fewer counted repetitions"
  })
}

/** Literal patterns: substring tests, run in place. */
const literal = (patterns: ReadonlyArray<string>, matchCase: boolean): LineMatcher => {
  const needles = matchCase ? patterns : patterns.map((pattern) => pattern.toLowerCase())
  return {
    firstMatches: (lines) =>
      Effect.sync(() =>
        lines.map((line) => {
          const haystack = matchCase ? line : line.toLowerCase()
          return needles.findIndex((needle) => haystack.includes(needle))
        })
      )
  }
}

/** The live engine. @category layers */
export const layer: Layer.Layer<Regex> = Layer.effect(
  Regex,
  Effect.gen(function*() {
    const run = yield* makePool(Math.max(2, Math.min(4, availableParallelism())))
    const compile = Effect.fn("Regex.compile")(function*(patterns: ReadonlyArray<string>, options: MatchOptions) {
      if (patterns.some((pattern) => pattern.length === 0)) {
        return yield* new PatternInvalid({ reason: "a pattern must not be empty" })
      }
      if (patterns.some((pattern) => pattern.length > maxPatternLength)) return yield* tooLong
      if (!options.regex) return literal(patterns, options.matchCase)
      const flags = options.matchCase ? 0 : caseInsensitive
      const compiled = yield* run({ patterns, flags, text: undefined }, compileBudgetMs)
      if (Option.isNone(compiled) || "crashed" in compiled.value) {
        return yield* new PatternInvalid({
          reason: "compiling it took too long or too much memory; use smaller or fewer counted repetitions"
        })
      }
      if ("failed" in compiled.value) return yield* rejection(patterns, compiled.value)
      const matcher: LineMatcher = {
        firstMatches: (lines, budgetMs) =>
          Effect.flatMap(run({ patterns, flags, text: lines.join("\n") }, budgetMs), (outcome) => {
            if (Option.isNone(outcome)) {
              return Effect.fail(
                new PatternTooCostly({ reason: `matching did not finish within ${budgetMs / 1000} s` })
              )
            }
            const reply = outcome.value
            if ("matches" in reply) return Effect.succeed(reply.matches)
            return Effect.fail(
              new PatternTooCostly({
                reason: "crashed" in reply ? `matching failed (${reply.crashed})` : "the pattern stopped compiling"
              })
            )
          })
      }
      return matcher
    })
    return Regex.of({ compile })
  })
)
