/**
 * The live audit sink: one JSON line per record, on stderr (stdout carries only JSON-RPC) or in
 * the file LIBTMUX_AUDIT_LOG names. A record counts as written only when one write(2) took the
 * whole line (at most 4,096 bytes, see auditLine.ts); a short write leaves no partial line behind
 * (AuditWrite.ts), so a record is whole or absent.
 *
 * One writer fiber takes the records from a queue, so lines never interleave, and makes its system
 * calls one at a time, on libuv's threadpool: a write that never returns (a frozen file system)
 * holds that fiber, not the thread that answers requests. Intent records go in the order the calls
 * came; an outcome (or rejection) record goes before the intent records still queued: its call
 * ended before those began to act, and under a burst the early calls answer early instead of after
 * every later intent. A caller waits for its record while the writer makes progress, and gives up
 * once the write in progress has been pending for `writeBoundMs` (a burst of calls queues, it does
 * not stall); an intent record not written then refuses its call. Such a write cannot be taken
 * back: if it completes later, an outcome record saying the call did
 * nothing follows it. While a write has been pending longer than the bound, intent records are
 * refused at once instead of queueing behind it.
 *
 * Before each record to a file, the file at the path is compared with the open one (device and
 * inode): one deleted or renamed (log rotation without copytruncate) or replaced is opened again at
 * the path, with the checks startup makes, and an `audit_reopened` record starts the new file; when
 * that cannot be done the record is not written (an intent record then refuses its call).
 *
 * stderr is in non-blocking mode (Node's handle makes a pipe so), and a client that never reads
 * it fills the pipe: writes then fail with EAGAIN. An intent record waits for that for up to a
 * second; if stderr stays unwritable, records move for good to a per-user fallback file, announced
 * once on stderr and in `tmux://capabilities`. A configured file is never replaced by another
 * destination: when it fails, calls are refused. Outcome records that could not be written wait
 * in a short queue and go first when a write succeeds again.
 */
import type * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import { auditLine } from "../domain/auditLine.ts"
import { recordPair } from "../domain/quote.ts"
import {
  auditFileAtPath,
  closeAuditFile,
  openAuditFile,
  type OpenedAuditFile,
  openFallbackAuditFile
} from "../platform/AuditFile.ts"
import { type FdIo, lineWriter, nodeIo, type Written } from "../platform/AuditWrite.ts"
import { layer as procLayer, Proc } from "../platform/Proc.ts"
import { Audit, type AuditStatus, AuditUnavailable } from "../services/Audit.ts"
import { ServerLog } from "../services/ServerLog.ts"

/** Where the audit starts out. @category models */
export type AuditTarget =
  | { readonly kind: "stderr"; readonly fallbackPath: string | undefined }
  | { readonly kind: "file"; readonly file: OpenedAuditFile; readonly path: string }

/** How long stderr may stay unwritable before records move to the fallback file. */
const unwritableLimitMs = 1000
const retryEveryMs = 20
/** Best-effort records kept while nothing takes them; beyond this they are counted as lost. */
const maxPending = 256
/** How long a call waits for its audit record to be written: beyond it an intent record refuses its call. */
export const writeBoundMs = 5000

/** A file records go to, and how to open it again at its path. */
interface FileDestination {
  file: OpenedAuditFile
  readonly path: string
  readonly reopen: () => Promise<OpenedAuditFile>
}

/** One record for the writer; `intent` when its call waits on it to act. */
interface Job {
  readonly line: string
  readonly intent: { readonly call: number; readonly tool: string; readonly queued: number } | undefined
  state: "queued" | "running" | "finished"
  /** Why the waiter stopped waiting, if it did. */
  gaveUp: "timeout" | "interrupt" | undefined
  readonly done: Deferred.Deferred<void, string>
}

const seconds = (ms: number): string => `${Math.round(ms / 100) / 10} s`

/** The sink's dependencies, and the state its parts (the writer and the callers' side) share and change. */
interface Sink {
  readonly target: AuditTarget
  readonly uid: number
  readonly log: ServerLog["Service"]
  readonly queue: Queue.Queue<Job>
  readonly writer: ReturnType<typeof lineWriter>
  readonly millis: () => number
  readonly now: () => string
  readonly line: (record: { readonly event: string } & Record<string, unknown>) => string
  destination: FileDestination | undefined
  moved: AuditStatus["moved"]
  unwritableSince: number | undefined
  lastFailure: number
  readonly pending: Array<string>
  lost: number
  calls: number
  /** Best-effort records in the queue, bounded like `pending` while a write stalls. */
  queuedLater: number
  /** When the write in progress began. */
  runningSince: number | undefined
  /** Best-effort records not yet written: they go first (they are in the queue too, to wake the writer). */
  readonly first: Array<Job>
}

const fd = (sink: Sink) => sink.destination?.file.fd ?? 2
const where = (sink: Sink) => sink.destination?.path ?? "stderr"
const writeWhole = (sink: Sink, line: string): Effect.Effect<Written> =>
  Effect.promise(() => sink.writer.write(fd(sink), line))

/**
 * Makes sure the open file is the one at its path: a file deleted, renamed or replaced there is
 * opened again at the path (the old descriptor closed), the new file's first record saying so.
 */
const checkFile = (sink: Sink): Effect.Effect<void, string> =>
  Effect.gen(function*() {
    const current = sink.destination
    if (current === undefined) return
    const found = yield* Effect.promise(() => auditFileAtPath(current.path, current.file))
    if (found === "same") return
    const gone = found === "missing" ? "was deleted or renamed" : "was replaced by another file"
    const opened = yield* Effect.tryPromise({
      try: current.reopen,
      catch: (error) =>
        `the audit file at this path ${gone}, and a new one cannot be opened there: ${(error as Error).message}`
    })
    const old = current.file.fd
    current.file = opened
    sink.writer.forget(old)
    yield* Effect.promise(() => closeAuditFile(old))
    yield* writeWhole(
      sink,
      sink.line({ event: "audit_reopened", time: sink.now(), path: current.path, reason: `the file ${gone}` })
    )
  })

/** Writes the records kept while nothing took them, then says how many were lost; stops at the first failure. */
const flushPending = (sink: Sink): Effect.Effect<Written> =>
  Effect.gen(function*() {
    while (sink.pending.length > 0) {
      const result = yield* writeWhole(sink, sink.pending[0]!)
      if (!result.ok) return result
      sink.pending.shift()
    }
    if (sink.lost === 0) return { ok: true } as const
    const result = yield* writeWhole(sink, sink.line({ event: "audit_lost", time: sink.now(), records: sink.lost }))
    if (result.ok) sink.lost = 0
    return result
  })

/** Moves records from stderr to the fallback file; says why not when it cannot. */
const move = (sink: Sink, reason: string): Effect.Effect<string | undefined> =>
  Effect.gen(function*() {
    const { target, uid } = sink
    if (target.kind !== "stderr" || target.fallbackPath === undefined) {
      return "no fallback file: neither XDG_STATE_HOME nor HOME is an absolute path (set one, or LIBTMUX_AUDIT_LOG)"
    }
    const fallback = target.fallbackPath
    const opened = yield* Effect.result(Effect.tryPromise({
      try: () => openFallbackAuditFile(fallback, uid),
      catch: (error) => `the fallback file ${fallback} cannot be used: ${(error as Error).message}`
    }))
    if (opened._tag === "Failure") return opened.failure
    sink.destination = { file: opened.success, path: fallback, reopen: () => openFallbackAuditFile(fallback, uid) }
    const moved = { time: sink.now(), reason }
    sink.moved = moved
    yield* writeWhole(sink, sink.line({ event: "audit_moved", time: moved.time, from: "stderr", reason }))
    // Best effort: stderr is the stream that just failed.
    let warning = ""
    sink.log.line(
      "warning",
      `libtmux-mcp warning: ${recordPair("audit", "moved")} ${recordPair("path", fallback)} ${
        recordPair("reason", reason)
      }`,
      (text) => (warning = text)
    )
    yield* Effect.promise(() => sink.writer.write(2, warning))
    return undefined
  })

/** Writes a line; `wait` keeps trying a full stderr for up to a second. Fails with the reason nothing took it. */
const write = (sink: Sink, line: string, wait: boolean): Effect.Effect<void, string> =>
  Effect.gen(function*() {
    yield* Effect.mapError(checkFile(sink), (reason) => `${where(sink)}: ${reason}`)
    const flushed = yield* flushPending(sink)
    const result = flushed.ok ? yield* writeWhole(sink, line) : flushed
    if (result.ok) {
      sink.unwritableSince = undefined
      return
    }
    if (sink.destination !== undefined) return yield* Effect.fail(`${sink.destination.path}: ${result.detail}`)
    const at = sink.millis()
    // A stretch counts only while it is probed: a failure long after the last one starts a new stretch.
    if (sink.unwritableSince === undefined || at - sink.lastFailure > 5 * retryEveryMs) sink.unwritableSince = at
    sink.lastFailure = at
    if (result.code === "EAGAIN" && at - sink.unwritableSince < unwritableLimitMs) {
      if (!wait) return yield* Effect.fail("stderr is full")
      yield* Effect.sleep(retryEveryMs)
      return yield* write(sink, line, wait)
    }
    const reason = result.code === "EAGAIN"
      ? `stderr stayed full for ${unwritableLimitMs} ms: the client does not read it`
      : `stderr cannot be written: ${result.detail}`
    const problem = yield* move(sink, reason)
    return problem === undefined ? yield* write(sink, line, wait) : yield* Effect.fail(`${reason}; ${problem}`)
  })

/** Best effort: a line nothing takes now waits for the next successful write. */
const writeLater = (sink: Sink, line: string): Effect.Effect<void> =>
  write(sink, line, false).pipe(Effect.catch(() =>
    Effect.sync(() => {
      if (sink.pending.length < maxPending) sink.pending.push(line)
      else sink.lost += 1
    })
  ))

/** The writer: one record at a time, in the order they came. */
const runJob = (sink: Sink, job: Job): Effect.Effect<void> =>
  Effect.gen(function*() {
    if (job.intent === undefined) sink.queuedLater -= 1
    // An intent whose call stopped waiting before its turn is not written: its call did nothing.
    else if (job.gaveUp !== undefined) return yield* Deferred.fail(job.done, "not written")
    job.state = "running"
    sink.runningSince = sink.millis()
    const exit = yield* Effect.exit(job.intent === undefined ? writeLater(sink, job.line) : write(sink, job.line, true))
    // From here to the answer in one step, so a waiter that gives up sees either the answer or `running`.
    sink.runningSince = undefined
    job.state = "finished"
    Deferred.doneUnsafe(job.done, exit)
    if (job.intent !== undefined && job.gaveUp !== undefined && Exit.isSuccess(exit)) {
      // The intent record landed after its call was refused (or cancelled): the next record says so.
      sink.runningSince = sink.millis()
      yield* writeLater(
        sink,
        sink.line({
          event: "tool_call_outcome",
          call: job.intent.call,
          time: sink.now(),
          tool: job.intent.tool,
          outcome: "error",
          error_tag: job.gaveUp === "timeout" ? "AuditUnavailable" : "Interrupted",
          duration_ms: sink.millis() - job.intent.queued,
          targets: []
        })
      )
      sink.runningSince = undefined
    }
  })

// A defect here is a bug of ours; it refuses this record, and the writer goes on with the next.
const guarded = (sink: Sink, job: Job): Effect.Effect<void> =>
  Effect.catchDefect(runJob(sink, job), (defect) =>
    Effect.sync(() => {
      sink.runningSince = undefined
      job.state = "finished"
      Deferred.doneUnsafe(
        job.done,
        Exit.fail(`${where(sink)}: internal error in the audit writer: ${String(defect)}`)
      )
    }))

/** The writer fiber's work: best-effort records first, then each record as the queue gives it. */
const writerLoop = (sink: Sink): Effect.Effect<never> =>
  Effect.forever(
    Effect.flatMap(Queue.take(sink.queue), (job) =>
      Effect.gen(function*() {
        while (sink.first.length > 0) yield* guarded(sink, sink.first.shift()!)
        // One that went first above is taken from the queue later, written already.
        if (job.state === "queued") yield* guarded(sink, job)
      }))
  )

/** How long the write in progress has been pending, when that is longer than the bound. */
const stalledFor = (sink: Sink): number | undefined => {
  if (sink.runningSince === undefined) return undefined
  const pendingMs = sink.millis() - sink.runningSince
  return pendingMs >= writeBoundMs ? pendingMs : undefined
}

/**
 * Waits for a job's write while the writer makes progress: `None` only once the write in progress
 * has been pending for the bound (a queue behind a burst of calls is slow, not stalled).
 */
const awaitWrite = (sink: Sink, job: Job): Effect.Effect<Option.Option<void>, string> =>
  Deferred.await(job.done).pipe(
    Effect.timeoutOption(
      sink.runningSince === undefined
        ? writeBoundMs
        : Math.max(1, writeBoundMs - (sink.millis() - sink.runningSince))
    ),
    Effect.flatMap((written) =>
      Option.isSome(written) || job.state === "finished" || stalledFor(sink) !== undefined
        ? Effect.succeed(written)
        : Effect.suspend(() => awaitWrite(sink, job))
    )
  )

const enqueue = (sink: Sink, line: string, intent: Job["intent"]): Job => {
  const job: Job = { line, intent, state: "queued", gaveUp: undefined, done: Deferred.makeUnsafe() }
  if (intent === undefined) {
    sink.queuedLater += 1
    sink.first.push(job)
  }
  Queue.offerUnsafe(sink.queue, job)
  return job
}

/** Best effort: queued in order; waits for the write unless one is stalled, and never longer than the bound. */
const recordLater = (sink: Sink, event: string, record: object): Effect.Effect<void> =>
  Effect.suspend(() => {
    const stalled = stalledFor(sink) !== undefined
    if (stalled && sink.queuedLater >= maxPending) {
      sink.lost += 1
      return Effect.void
    }
    const job = enqueue(sink, sink.line({ event, time: sink.now(), ...record }), undefined)
    if (stalled) return Effect.void
    return Effect.ignore(awaitWrite(sink, job))
  })

/**
 * An intent whose wait ran out: its call has its record when the write finished just then; else the
 * call is refused, the job marked so that a record written later is followed by one saying the call did nothing.
 */
const intentTimedOut = (sink: Sink, job: Job, call: number): Effect.Effect<number, string> => {
  // Written just as the wait ran out: the call has its record.
  if (job.state === "finished") return Effect.as(Deferred.await(job.done), call)
  job.gaveUp = "timeout"
  return Effect.fail(
    job.state === "queued"
      ? `${where(sink)}: an earlier audit write did not complete within ${seconds(writeBoundMs)} ` +
        "(is the file system frozen or stalled?); this call's record will not be written"
      : `${where(sink)}: the write did not complete within ${seconds(writeBoundMs)} ` +
        "(is the file system frozen or stalled?); should it complete later, an outcome record " +
        "saying this call did nothing follows it"
  )
}

const intent = (
  sink: Sink,
  record: Parameters<Audit["Service"]["intent"]>[0]
): Effect.Effect<number, AuditUnavailable> =>
  Effect.suspend((): Effect.Effect<number, string> => {
    const stalled = stalledFor(sink)
    if (stalled !== undefined) {
      return Effect.fail(
        `${where(sink)}: an audit write has been pending for ${seconds(stalled)} ` +
          "(is the file system frozen or stalled?); this call's record was not queued"
      )
    }
    sink.calls += 1
    const call = sink.calls
    const job = enqueue(sink, sink.line({ event: "tool_call_intent", call, time: sink.now(), ...record }), {
      call,
      tool: record.tool,
      queued: sink.millis()
    })
    return awaitWrite(sink, job).pipe(
      Effect.onInterrupt(() => Effect.sync(() => (job.gaveUp ??= "interrupt"))),
      Effect.flatMap(Option.match({
        onSome: () => Effect.succeed(call),
        onNone: () => intentTimedOut(sink, job, call)
      }))
    )
  }).pipe(Effect.mapError((reason) => new AuditUnavailable({ tool: record.tool, reason })))

const makeSink = (
  target: AuditTarget,
  uid: number,
  io: FdIo,
  clock: Clock.Clock,
  log: ServerLog["Service"],
  queue: Queue.Queue<Job>,
  thisTag: string
) => {
  // Times come from the Clock, so a host's (or a test's) clock stamps the records.
  const millis = () => clock.currentTimeMillisUnsafe()
  const now = (): string => new Date(millis()).toISOString()
  const sink: Sink = {
    target,
    uid,
    log,
    queue,
    writer: lineWriter(io, now, thisTag),
    millis,
    now,
    // Every line names its process (the tag runs carry): two servers, or a server and the one
    // restarted after it, may write one file, and their call numbers each start at 1.
    line: ({ event, ...fields }) => auditLine({ event, instance: thisTag, ...fields }),
    destination: target.kind === "file"
      ? { file: target.file, path: target.path, reopen: () => openAuditFile(target.path, uid) }
      : undefined,
    moved: null,
    unwritableSince: undefined,
    lastFailure: 0,
    pending: [],
    lost: 0,
    calls: 0,
    queuedLater: 0,
    runningSince: undefined,
    first: []
  }

  const service = Audit.of({
    intent: Effect.fn("Audit.intent")(function*(record: Parameters<Audit["Service"]["intent"]>[0]) {
      return yield* intent(sink, record)
    }),
    outcome: Effect.fn("Audit.outcome")(function*(record: Parameters<Audit["Service"]["outcome"]>[0]) {
      yield* recordLater(sink, "tool_call_outcome", record)
    }),
    rejection: Effect.fn("Audit.rejection")(function*(record: Parameters<Audit["Service"]["rejection"]>[0]) {
      yield* recordLater(sink, "tool_call_rejected", record)
    }),
    status: Effect.sync((): AuditStatus => ({
      destination: sink.destination === undefined ? "stderr" : "file",
      path: sink.destination?.path ?? null,
      fallback_path: target.kind === "stderr" ? target.fallbackPath ?? null : null,
      moved: sink.moved
    }))
  })
  const close = Effect.promise(async () => {
    if (sink.destination !== undefined) await closeAuditFile(sink.destination.file.fd)
  })
  return { service, close, writerLoop: writerLoop(sink) }
}

/** The audit sink over a target; `uid` owns the fallback file. @category layers */
export const layer = (target: AuditTarget, uid: number, io: FdIo = nodeIo): Layer.Layer<Audit, never, ServerLog> =>
  Layer.effect(
    Audit,
    Effect.gen(function*() {
      const clock = yield* Effect.clockWith(Effect.succeed)
      const log = yield* ServerLog
      const { tag } = yield* Proc
      // Node's stderr handle puts a pipe into non-blocking mode; without it a full pipe would block the process.
      if (target.kind === "stderr") void process.stderr
      const queue = yield* Queue.unbounded<Job>()
      const sink = yield* Effect.acquireRelease(
        Effect.sync(() => makeSink(target, uid, io, clock, log, queue, tag)),
        (sink) => sink.close
      )
      // Interrupted as the scope closes, before the file is closed.
      yield* Effect.forkScoped(sink.writerLoop)
      return sink.service
    })
  ).pipe(Layer.provide(procLayer))
