/**
 * The live recorder: a pane's output comes from tmux itself, by `pipe-pane -O` into a FIFO this
 * process reads (never the command connection), as tmux writes it; each chunk becomes an `o` event
 * timed as it arrives. Resizes are asked of tmux when output comes (at most every quarter second,
 * the output held until the answer, so a redraw at a new size follows its `r` event).
 *
 * Bounded: this process never stops reading the pipe (so tmux never buffers for it); events wait
 * for the disk in a queue of at most `queueBytes`, and output beyond it is dropped and counted by a
 * marker. A file is closed at `partBytes` and the next part begun; the oldest parts beyond
 * `partsKept` are deleted. Every file operation runs on libuv's threadpool.
 *
 * The recording ends when the pane goes (an `x` event), when its pipe is taken by another
 * `pipe-pane` (a marker; the next call that touches the pane starts a new recording), or when the
 * server stops (a marker, the pipe closed).
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Socket } from "node:net"
import { join } from "node:path"
import {
  castClock,
  type CastCode,
  castFileName,
  defaultRecordLimits,
  eventLine,
  headerLine,
  pipeCommand,
  type RecordLimits,
  screenOutput
} from "../domain/asciicast.ts"
import { isPaneId } from "../domain/ids.ts"
import { layer as procLayer, Proc } from "../platform/Proc.ts"
import {
  checkRecordFolder,
  closeFd,
  createCastFile,
  makeFifo,
  openFifo,
  RecordFolderRefused,
  removeFile,
  writeAll
} from "../platform/RecordFolder.ts"
import type { TmuxError } from "../services/errors.ts"
import { type CallMark, Recorder, recordingOff, RecordingUnavailable } from "../services/Recorder.ts"
import { ServerLog } from "../services/ServerLog.ts"
import { SocketPin } from "../services/SocketPin.ts"
import { TmuxUpkeep } from "../services/TmuxUpkeep.ts"

/** How long tmux's pipe may take to open the FIFO. */
const connectMs = 5000
/** How long events may wait to be written together, and how many bytes of them start the write at once. */
const flushMs = 200
const flushBytes = 64 * 1024
/** How often, at most, output makes the recorder ask a pane's size. */
const sizeEveryMs = 250

/** The most text one `o` event holds: a line stays well under a part, escapes and all. */
const pieceChars = 8192

/** Text cut into events of at most `pieceChars`, never inside a surrogate pair. */
const pieces = (text: string): Array<string> => {
  const out: Array<string> = []
  for (let start = 0; start < text.length;) {
    let end = Math.min(text.length, start + pieceChars)
    const last = text.charCodeAt(end - 1)
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1
    out.push(text.slice(start, end))
    start = end
  }
  return out
}

/** One event not yet in the queue (held while a size is asked), with the time it happened. */
interface Held {
  readonly at: number
  readonly code: CastCode | "raw"
  readonly data: string | Buffer
}

/** One pane's recording. */
interface Recording {
  readonly pane: string
  readonly sequence: number
  part: number
  fd: number
  /** The current part's header, and its events written, in bytes. */
  headerBytes: number
  eventBytes: number
  readonly parts: Array<string>
  readonly clock: (nowMs: number) => number
  cols: number
  rows: number
  readonly queue: Array<string>
  queued: number
  writing: boolean
  /** The timer of the next write, while events wait for it. */
  flush: ReturnType<typeof setTimeout> | undefined
  /** Events held while a size is asked (or the recording starts). */
  held: Array<Held> | undefined
  heldBytes: number
  lastSizeAsk: number
  /** Output bytes not recorded because the disk fell behind, not yet marked. */
  dropped: number
  readonly decoder: InstanceType<typeof TextDecoder>
  socket: Socket | undefined
  /** Set once the recording ended: no more events. */
  ended: boolean
  failure: string | undefined
  /** Resolves when the last event is on disk and the file closed. */
  closed: Promise<void> | undefined
}

const paneMissing = (error: TmuxError) =>
  error._tag === "ServerNotRunning" ||
  (error._tag === "TmuxCommandFailed" && /can't find (pane|window|session)/u.test(error.stderr))

/** The live recorder over a checked folder. @category layers */
export const layer = (
  folder: string,
  limits: RecordLimits = defaultRecordLimits
): Layer.Layer<Recorder, never, TmuxUpkeep | SocketPin | ServerLog> =>
  Layer.effect(
    Recorder,
    Effect.gen(function*() {
      const upkeep = yield* TmuxUpkeep
      const pin = yield* SocketPin
      const log = yield* ServerLog
      const { tag } = yield* Proc
      const uid = process.getuid?.() ?? 0
      const recordings = new Map<string, Recording>()
      const starting = new Map<string, Promise<"recording" | "absent">>()
      let sequence = 0
      const now = () => Date.now()

      const tmux = (commands: ReadonlyArray<ReadonlyArray<string>>) =>
        Effect.runPromise(Effect.exit(upkeep.run(commands, { timeoutMs: 5000 })))

      const warn = (text: string) => log.line("warning", `libtmux-mcp warning: recording: ${text}`)

      /** Writes the queue out, a part at a time; a failure ends the recording, said in the server log. */
      const pump = async (rec: Recording): Promise<void> => {
        if (rec.writing) return
        rec.writing = true
        try {
          while (rec.queue.length > 0) {
            // The lines that fit in this part (one at least): a part ends at a line, near its limit.
            const sizes = rec.queue.map((line) => Buffer.byteLength(line))
            if (rec.eventBytes > 0 && rec.eventBytes + rec.headerBytes + sizes[0]! > limits.partBytes) {
              await nextPart(rec)
            }
            let take = 1
            let size = sizes[0]!
            while (take < sizes.length && rec.eventBytes + rec.headerBytes + size + sizes[take]! <= limits.partBytes) {
              size += sizes[take]!
              take += 1
            }
            const lines = rec.queue.splice(0, take)
            rec.queued -= lines.reduce((sum, line) => sum + line.length, 0)
            await writeAll(rec.fd, Buffer.from(lines.join("")))
            rec.eventBytes += size
            if (rec.dropped > 0 && !rec.ended) {
              push(rec, now(), "m", `output not recorded: ${rec.dropped} bytes (the disk fell behind)`)
              rec.dropped = 0
            }
          }
        } catch (error) {
          rec.failure = `writing its recording failed: ${(error as Error).message}`
          warn(`pane ${rec.pane}: ${rec.failure}`)
          void stop(rec, undefined)
        } finally {
          rec.writing = false
        }
      }

      /** Closes the full part and begins the next, with its own header; parts beyond those kept are deleted. */
      const nextPart = async (rec: Recording): Promise<void> => {
        await closeFd(rec.fd)
        rec.part += 1
        const path = join(folder, castFileName(tag, rec.sequence, rec.pane, rec.part))
        await checkRecordFolder(folder, uid)
        rec.fd = await createCastFile(path)
        rec.parts.push(path)
        while (rec.parts.length > limits.partsKept) await removeFile(rec.parts.shift()!)
        const header = Buffer.from(header_(rec))
        await writeAll(rec.fd, header)
        rec.headerBytes = header.length
        rec.eventBytes = 0
      }

      const header_ = (rec: Recording) =>
        headerLine({
          cols: rec.cols,
          rows: rec.rows,
          timestamp: Math.floor(now() / 1000),
          instance: tag,
          socket: pin.resolvedPath,
          pane: rec.pane,
          part: rec.part
        })

      /** Queues one event, or drops output the disk has not kept up with. */
      const push = (rec: Recording, at: number, code: CastCode, data: string) => {
        if (rec.ended) return
        if (code === "o" && rec.queued > limits.queueBytes) {
          rec.dropped += Buffer.byteLength(data)
          return
        }
        const line = eventLine(rec.clock(at), code, data)
        rec.queue.push(line)
        rec.queued += line.length
        // Events go to disk together, a moment later (one write instead of one each), or at once when many wait.
        if (rec.queued >= flushBytes) void pump(rec)
        else {rec.flush ??= setTimeout(() => {
            rec.flush = undefined
            void pump(rec)
          }, flushMs)}
      }

      /** An event now, or held in order behind a size being asked. */
      const event = (rec: Recording, at: number, code: CastCode | "raw", data: string | Buffer) => {
        if (rec.held !== undefined) {
          if (code === "raw" && rec.heldBytes > limits.queueBytes) {
            rec.dropped += data.length
            return
          }
          rec.held.push({ at, code, data })
          rec.heldBytes += data.length
          return
        }
        if (code !== "raw") return push(rec, at, code, data as string)
        for (const piece of pieces(rec.decoder.decode(data as Buffer, { stream: true }))) push(rec, at, "o", piece)
      }

      /** Lets the held events go, in order. */
      const release = (rec: Recording) => {
        const held = rec.held ?? []
        rec.held = undefined
        rec.heldBytes = 0
        for (const { at, code, data } of held) event(rec, at, code, data)
      }

      /** Asks the pane's size; a change becomes an `r` event before the output held meanwhile. */
      const askSize = async (rec: Recording) => {
        const exit = await tmux([["display-message", "-p", "-t", rec.pane, "#{pane_width} #{pane_height}"]])
        if (Exit.isSuccess(exit)) {
          const [cols, rows] = exit.value.trim().split(" ").map(Number)
          if (
            cols !== undefined && rows !== undefined && cols > 0 && rows > 0 &&
            (cols !== rec.cols || rows !== rec.rows)
          ) {
            rec.cols = cols
            rec.rows = rows
            push(rec, rec.held?.[0]?.at ?? now(), "r", `${cols}x${rows}`)
          }
        }
        release(rec)
      }

      const output = (rec: Recording, chunk: Buffer) => {
        const at = now()
        if (rec.held === undefined && at - rec.lastSizeAsk >= sizeEveryMs) {
          rec.lastSizeAsk = at
          rec.held = []
          event(rec, at, "raw", chunk)
          void askSize(rec)
          return
        }
        event(rec, at, "raw", chunk)
      }

      /**
       * Ends a recording: the last marker (and the exit event when the pane went), the pipe closed when
       * it is still ours, the file closed once the queue is written.
       */
      const stop = (rec: Recording, last: { readonly label: string; readonly exit?: string } | undefined) => {
        if (rec.closed !== undefined) return rec.closed
        release(rec)
        const tail = rec.decoder.decode()
        if (tail !== "") push(rec, now(), "o", tail)
        if (last !== undefined) {
          const at = now()
          push(rec, at, "m", last.label)
          // A player's timeline ends at the last event and shows only the markers before it: one
          // millisecond later comes the exit, or an empty output.
          if (last.exit !== undefined) push(rec, at + 1, "x", last.exit)
          else push(rec, at + 1, "o", "")
        }
        rec.ended = true
        recordings.delete(rec.pane)
        const socket = rec.socket
        rec.socket = undefined
        socket?.destroy()
        clearTimeout(rec.flush)
        rec.flush = undefined
        rec.closed = (async () => {
          while (rec.writing || rec.queue.length > 0) {
            await pump(rec)
            if (rec.writing) await new Promise((done) => setTimeout(done, 5))
          }
          await closeFd(rec.fd)
        })()
        return rec.closed
      }

      /** The pipe ended: the pane went (or its server did), or another `pipe-pane` took it. */
      const pipeEnded = async (rec: Recording) => {
        if (rec.ended) return
        // tmux prints nothing (and succeeds) for a pane it cannot find.
        const exit = await tmux([["display-message", "-p", "-t", rec.pane, "#{pane_id}"]])
        if (Exit.isFailure(exit) || exit.value.trim() !== rec.pane) {
          return stop(rec, { label: "pane gone (its exit status is not known once tmux removed it)", exit: "-1" })
        }
        return stop(rec, { label: "recording stopped: another pipe-pane took the pane's pipe" })
      }

      /** Starts a pane's recording; `absent` when there is no such pane (the call's own error says so). */
      const start = async (pane: string): Promise<"recording" | "absent"> => {
        await checkRecordFolder(folder, uid)
        sequence += 1
        const number = sequence
        const fifo = join(folder, `.${tag}-${number}.fifo`)
        await makeFifo(fifo)
        let ends: { readonly read: number; readonly hold: number } | undefined
        try {
          ends = await openFifo(fifo)
          const socket = new Socket({ fd: ends.read, readable: true, writable: false })
          const hold = ends.hold
          const connected = Promise.withResolvers<void>()
          // Rejected when the pipe closes first: awaited only once tmux has answered.
          connected.promise.catch(() => undefined)
          let chunks: Array<Buffer> | undefined = []
          let rec: Recording | undefined
          socket.on("data", (chunk: Buffer) => {
            if (chunks !== undefined) {
              chunks.push(chunk)
              connected.resolve()
            } else if (rec !== undefined) output(rec, chunk)
          })
          socket.on("error", () => undefined)
          socket.on("close", () => {
            connected.reject(new RecordFolderRefused("tmux's pipe closed before it opened"))
            if (rec !== undefined && rec.socket === socket) void pipeEnded(rec)
          })
          const answer = await tmux([
            ["display-message", "-p", "-t", pane, "#{pane_pipe} #{pane_width} #{pane_height} #{cursor_x} #{cursor_y}"],
            ["pipe-pane", "-o", "-t", pane, pipeCommand(fifo)],
            ["capture-pane", "-p", "-e", "-t", pane]
          ])
          if (Exit.isFailure(answer)) {
            socket.destroy()
            const error = Option.getOrUndefined(Cause.findErrorOption(answer.cause))
            if (error !== undefined && paneMissing(error)) return "absent"
            throw new RecordFolderRefused(`tmux did not start its pipe: ${error?.message ?? "it failed"}`)
          }
          const [facts = "", ...rows] = answer.value.replace(/\n$/u, "").split("\n")
          const [piped, cols, height, cursorX, cursorY] = facts.split(" ").map(Number)
          if (piped === 1) {
            socket.destroy()
            throw new RecordFolderRefused(
              "it has a pipe already (pipe-pane), and tmux gives a pane one; close that pipe to record it"
            )
          }
          const timer = setTimeout(
            () => connected.reject(new RecordFolderRefused("tmux's pipe did not open")),
            connectMs
          )
          try {
            await connected.promise
          } catch (error) {
            socket.destroy()
            await tmux([["pipe-pane", "-t", pane]])
            throw error
          } finally {
            clearTimeout(timer)
          }
          await closeFd(hold)
          ends = undefined
          await removeFile(fifo)
          const path = join(folder, castFileName(tag, number, pane, 1))
          const at = now()
          const headerText = headerLine({
            cols: cols || 80,
            rows: height || 24,
            timestamp: Math.floor(at / 1000),
            instance: tag,
            socket: pin.resolvedPath,
            pane,
            part: 1
          })
          // The file and its header first, before the call acts: a folder or disk that refuses them refuses the call.
          const fd = await createCastFile(path).then(async (fd) => {
            await writeAll(fd, Buffer.from(headerText)).catch(async (error: Error) => {
              await closeFd(fd)
              throw new RecordFolderRefused(`its file cannot be written: ${error.message}`)
            })
            return fd
          }).catch(async (error: Error) => {
            socket.destroy()
            await tmux([["pipe-pane", "-t", pane]])
            throw error
          })
          rec = {
            pane,
            sequence: number,
            part: 1,
            fd,
            headerBytes: Buffer.byteLength(headerText),
            eventBytes: 0,
            parts: [path],
            clock: castClock(at),
            cols: cols || 80,
            rows: height || 24,
            queue: [],
            queued: 0,
            writing: false,
            flush: undefined,
            held: undefined,
            heldBytes: 0,
            lastSizeAsk: at,
            dropped: 0,
            decoder: new TextDecoder("utf-8"),
            socket,
            ended: false,
            failure: undefined,
            closed: undefined
          }
          recordings.set(pane, rec)
          push(
            rec,
            at,
            "o",
            screenOutput({ rows: rows.slice(0, rec.rows), cursorX: cursorX ?? 0, cursorY: cursorY ?? 0 })
          )
          // The first chunk begins with the `R` the pipe's shell wrote.
          const early = Buffer.concat(chunks!).subarray(1)
          chunks = undefined
          if (early.length > 0) output(rec, early)
          return "recording"
        } finally {
          if (ends !== undefined) {
            await closeFd(ends.hold)
          }
          await removeFile(fifo)
        }
      }

      /** The pane's recording, started when it has none; single flight per pane. */
      const ensure = (pane: string): Promise<"recording" | "absent"> => {
        if (recordings.has(pane)) return Promise.resolve("recording")
        const pending = starting.get(pane)
        if (pending !== undefined) return pending
        const started = start(pane).finally(() => starting.delete(pane))
        starting.set(pane, started)
        return started
      }

      const markOn = (pane: string, label: string) => {
        const rec = recordings.get(pane)
        if (rec !== undefined) event(rec, now(), "m", label)
      }

      yield* Effect.addFinalizer(() =>
        Effect.promise(async () => {
          const open = [...recordings.values()]
          if (open.length === 0) return
          // Each recording ends first (its reader gone, so closing its pipe is no news to it), then the
          // pipes close while tmux still runs: a pipe left open would outlive this process's reader.
          const closed = open.map((rec) => stop(rec, { label: "recording stopped: the server stopped" }))
          await tmux(open.map((rec) => ["pipe-pane", "-t", rec.pane]))
          await Promise.all(closed)
        })
      )

      const before = (panes: ReadonlyArray<string>, mark: CallMark) =>
        Effect.forEach(panes.filter(isPaneId), (pane) =>
          Effect.tryPromise({
            try: () => ensure(pane),
            catch: (error) =>
              new RecordingUnavailable({
                tool: mark.tool,
                pane,
                reason: error instanceof RecordFolderRefused
                  ? `the recording folder ${folder}: ${error.message}`
                  : String((error as Error).message ?? error)
              })
          }).pipe(Effect.map((state) => {
            if (state === "recording") markOn(pane, mark.label)
          })), { discard: true })

      return Recorder.of({
        on: true,
        before,
        after: (named, reached, mark, ended) =>
          Effect.gen(function*() {
            const fresh = reached.filter((id) => isPaneId(id) && !named.includes(id))
            for (const pane of fresh) {
              const started = yield* Effect.exit(before([pane], mark))
              if (Exit.isFailure(started)) warn(`pane ${pane} is not recorded: ${String(started.cause)}`)
            }
            if (ended !== undefined) markOn(ended.pane, `exit ${ended.status} (${mark.label})`)
          }),
        status: Effect.sync(() => ({
          folder,
          panes: [...recordings.keys()],
          part_bytes: limits.partBytes,
          parts_kept: limits.partsKept
        }))
      })
    })
  ).pipe(Layer.provide(procLayer))

/** Recording off: nothing is recorded, and nothing costs more. @category layers */
export const off: Layer.Layer<Recorder> = Layer.succeed(Recorder, recordingOff)
