/**
 * The live audit sink: one JSON line per record, on stderr (stdout carries only JSON-RPC) or in
 * the file LIBTMUX_AUDIT_LOG names. A record counts as written only when one write(2) took the
 * whole line (at most 4,096 bytes, see auditLine.ts); a short write leaves no partial line behind
 * (AuditWrite.ts), so a record is whole or absent.
 *
 * stderr is in non-blocking mode (Node's handle makes a pipe so), and a client that never reads
 * it fills the pipe: writes then fail with EAGAIN. An intent record waits for that for up to a
 * second; if stderr stays unwritable, records move for good to a per-user fallback file, announced
 * once on stderr and in `tmux://capabilities`. A configured file is never replaced: when it fails,
 * calls are refused. Outcome records that could not be written wait in a short queue and go first
 * when a write succeeds again.
 */
import type * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { closeSync } from "node:fs"
import { auditLine } from "../domain/auditLine.ts"
import { recordPair } from "../domain/quote.ts"
import { openFallbackAuditFile } from "../platform/AuditFile.ts"
import { type FdIo, lineWriter, nodeIo, type Written } from "../platform/AuditWrite.ts"
import { Audit, type AuditStatus, AuditUnavailable } from "../services/Audit.ts"
import { ServerLog } from "../services/ServerLog.ts"

/** Where the audit starts out. @category models */
export type AuditTarget =
  | { readonly kind: "stderr"; readonly fallbackPath: string | undefined }
  | { readonly kind: "file"; readonly fd: number; readonly path: string }

/** How long stderr may stay unwritable before records move to the fallback file. */
const unwritableLimitMs = 1000
const retryEveryMs = 20
/** Best-effort records kept while nothing takes them; beyond this they are counted as lost. */
const maxPending = 256

const makeSink = (target: AuditTarget, uid: number, io: FdIo, clock: Clock.Clock, log: ServerLog["Service"]) => {
  // Times come from the Clock, so a host's (or a test's) clock stamps the records.
  const now = (): string => new Date(clock.currentTimeMillisUnsafe()).toISOString()
  const writeWhole = lineWriter(io, now).write
  let fd = target.kind === "file" ? target.fd : 2
  let path: string | null = target.kind === "file" ? target.path : null
  let moved: AuditStatus["moved"] = null
  let unwritableSince: number | undefined
  let lastFailure = 0
  const pending: Array<string> = []
  let lost = 0
  let calls = 0

  const flushPending = (): Written => {
    while (pending.length > 0) {
      const result = writeWhole(fd, pending[0]!)
      if (!result.ok) return result
      pending.shift()
    }
    if (lost === 0) return { ok: true }
    const result = writeWhole(fd, auditLine({ event: "audit_lost", time: now(), records: lost }))
    if (result.ok) lost = 0
    return result
  }

  /** Moves records from stderr to the fallback file; says why not when it cannot. */
  const move = (reason: string): string | undefined => {
    if (target.kind !== "stderr" || target.fallbackPath === undefined) {
      return "no fallback file: neither XDG_STATE_HOME nor HOME is an absolute path (set one, or LIBTMUX_AUDIT_LOG)"
    }
    const fallback = target.fallbackPath
    try {
      fd = openFallbackAuditFile(fallback, uid)
    } catch (error) {
      return `the fallback file ${fallback} cannot be used: ${(error as Error).message}`
    }
    path = fallback
    moved = { time: now(), reason }
    writeWhole(fd, auditLine({ event: "audit_moved", time: moved.time, from: "stderr", reason }))
    // Best effort: stderr is the stream that just failed.
    log.line(
      "warning",
      `libtmux-mcp warning: ${recordPair("audit", "moved")} ${recordPair("path", fallback)} ${
        recordPair("reason", reason)
      }`,
      (text) => writeWhole(2, text)
    )
    return undefined
  }

  /** Writes a line; `wait` keeps trying a full stderr for up to a second. Fails with the reason nothing took it. */
  const write = (line: string, wait: boolean): Effect.Effect<void, string> =>
    Effect.suspend(() => {
      const flushed = flushPending()
      const result = flushed.ok ? writeWhole(fd, line) : flushed
      if (result.ok) {
        unwritableSince = undefined
        return Effect.void
      }
      if (path !== null) return Effect.fail(`${path}: ${result.detail}`)
      const at = clock.currentTimeMillisUnsafe()
      // A stretch counts only while it is probed: a failure long after the last one starts a new stretch.
      if (unwritableSince === undefined || at - lastFailure > 5 * retryEveryMs) unwritableSince = at
      lastFailure = at
      if (result.code === "EAGAIN" && at - unwritableSince < unwritableLimitMs) {
        return wait ? Effect.sleep(retryEveryMs).pipe(Effect.andThen(write(line, wait))) : Effect.fail("stderr is full")
      }
      const reason = result.code === "EAGAIN"
        ? `stderr stayed full for ${unwritableLimitMs} ms: the client does not read it`
        : `stderr cannot be written: ${result.detail}`
      const problem = move(reason)
      return problem === undefined ? write(line, wait) : Effect.fail(`${reason}; ${problem}`)
    })

  /** Best effort: a line nothing takes now waits for the next successful write. */
  const writeLater = (event: string, record: object): Effect.Effect<void> =>
    Effect.suspend(() => {
      const line = auditLine({ event, time: now(), ...record })
      return write(line, false).pipe(Effect.catch(() =>
        Effect.sync(() => {
          if (pending.length < maxPending) pending.push(line)
          else lost += 1
        })
      ))
    })

  const service = Audit.of({
    intent: (record) =>
      Effect.suspend(() => {
        calls += 1
        const call = calls
        return write(auditLine({ event: "tool_call_intent", call, time: now(), ...record }), true).pipe(
          Effect.mapError((reason) => new AuditUnavailable({ tool: record.tool, reason })),
          Effect.as(call)
        )
      }),
    outcome: (record) => writeLater("tool_call_outcome", record),
    rejection: (record) => writeLater("tool_call_rejected", record),
    status: Effect.sync((): AuditStatus => ({
      destination: path === null ? "stderr" : "file",
      path,
      fallback_path: target.kind === "stderr" ? target.fallbackPath ?? null : null,
      moved
    }))
  })
  const close = () => {
    if (fd !== 2) closeSync(fd)
  }
  return { service, close }
}

/** The audit sink over a target; `uid` owns the fallback file. @category layers */
export const layer = (target: AuditTarget, uid: number, io: FdIo = nodeIo): Layer.Layer<Audit, never, ServerLog> =>
  Layer.effect(
    Audit,
    Effect.acquireRelease(
      Effect.gen(function*() {
        const clock = yield* Effect.clockWith(Effect.succeed)
        const log = yield* ServerLog
        // Node's stderr handle puts a pipe into non-blocking mode; without it a full pipe would block the process.
        if (target.kind === "stderr") void process.stderr
        return makeSink(target, uid, io, clock, log)
      }),
      (sink) => Effect.sync(sink.close)
    ).pipe(Effect.map((sink) => sink.service))
  )
