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
import { judgeInstance, parseTag } from "../domain/instance.ts"
import { recorderOption } from "../domain/protocolNames.ts"
import { tmuxRefusal } from "../domain/tmuxRefusals.ts"
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
  /** The current part's file; `undefined` once closed. */
  fd: number | undefined
  /** The current part's header, and its events written, in bytes. */
  headerBytes: number
  eventBytes: number
  readonly parts: Array<string>
  readonly clock: (nowMs: number) => number
  cols: number
  rows: number
  readonly queue: Array<string>
  queued: number
  /** The write in progress. */
  writing: Promise<void> | undefined
  /** The timer of the next write, while events wait for it. */
  flush: ReturnType<typeof setTimeout> | undefined
  /** Why events are held (a size asked, a call that may change the layout), and the events held. */
  holds: number
  held: Array<Held> | undefined
  heldBytes: number
  lastSizeAsk: number
  /** Output bytes not recorded (the recording fell behind), not yet marked. */
  dropped: number
  readonly decoder: InstanceType<typeof TextDecoder>
  socket: Socket | undefined
  /** Set once the recording ended: no more events. */
  ended: boolean
  /** Set when a write failed: nothing more is written. */
  failure: string | undefined
  /** Resolves when the last event is on disk and the file closed. */
  closed: Promise<void> | undefined
}

/** How a recording ends: its last marker, the exit status when the pane went, and whether its pipe is still ours. */
interface Ending {
  readonly label: string | undefined
  readonly exit?: string
  readonly pipe: "ours" | "gone"
}

/** A pane that cannot be recorded, for a reason of its own (not the folder's). */
class PaneRefused extends Error {}

/** The commands that end this instance's pipe on a pane, and the option that names it. */
const closing = (pane: string): ReadonlyArray<ReadonlyArray<string>> => [
  ["pipe-pane", "-t", pane],
  ["set-option", "-p", "-u", "-t", pane, recorderOption]
]

/** tmux's answer for a pane that is not there to record: gone, its server gone, or dead (exited). */
const paneMissing = (error: TmuxError) =>
  error._tag === "ServerNotRunning" ||
  (error._tag === "TmuxCommandFailed" &&
    (tmuxRefusal(error.stderr)._tag === "TargetMissing" || error.stderr.includes("target pane has exited")))

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
      const { tag, view } = yield* Proc
      /** Whether a recorder's tag is a dead instance's: its pipe is left over, and may be taken. */
      const leftBy = (owner: string) => {
        const instance = parseTag(owner)
        return instance !== undefined && instance.started !== 0 && judgeInstance(instance, view) === "dead"
      }
      const uid = process.getuid?.() ?? 0
      const recordings = new Map<string, Recording>()
      const starting = new Map<string, Promise<"recording" | "absent">>()
      /** The recordings a call that may change the layout holds, until it ends. */
      const layoutHolds = new Map<CallMark, ReadonlyArray<Recording>>()
      let sequence = 0
      let stopping = false
      const now = () => Date.now()

      const tmux = (commands: ReadonlyArray<ReadonlyArray<string>>) =>
        Effect.runPromise(Effect.exit(upkeep.run(commands, { timeoutMs: 5000 })))

      const warn = (text: string) => log.line("warning", `libtmux-mcp warning: recording: ${text}`)

      const headerOf = (rec: Pick<Recording, "cols" | "rows" | "pane" | "part">) =>
        headerLine({
          cols: rec.cols,
          rows: rec.rows,
          timestamp: Math.floor(now() / 1000),
          instance: tag,
          socket: pin.resolvedPath,
          pane: rec.pane,
          part: rec.part
        })

      /** Closes the full part and begins the next, with its own header; parts beyond those kept are deleted. */
      const nextPart = async (rec: Recording): Promise<void> => {
        const full = rec.fd
        rec.fd = undefined
        if (full !== undefined) await closeFd(full)
        rec.part += 1
        const path = join(folder, castFileName(tag, rec.sequence, rec.pane, rec.part))
        await checkRecordFolder(folder, uid)
        const fd = await createCastFile(path)
        rec.fd = fd
        rec.parts.push(path)
        while (rec.parts.length > limits.partsKept) await removeFile(rec.parts.shift()!)
        const header = Buffer.from(headerOf(rec))
        await writeAll(fd, header)
        rec.headerBytes = header.length
        rec.eventBytes = 0
      }

      /**
       * Writes the queue out, a part at a time, one writer a recording (the one in progress is returned);
       * a failure ends the recording, said in the server log.
       */
      const pump = (rec: Recording): Promise<void> => {
        if (rec.failure !== undefined) return Promise.resolve()
        rec.writing ??= writeQueue(rec).finally(() => (rec.writing = undefined))
        return rec.writing
      }

      const writeQueue = async (rec: Recording): Promise<void> => {
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
            if (rec.fd === undefined) throw new Error("its file is closed")
            const lines = rec.queue.splice(0, take)
            rec.queued -= lines.reduce((sum, line) => sum + line.length, 0)
            await writeAll(rec.fd, Buffer.from(lines.join("")))
            rec.eventBytes += size
            if (rec.dropped > 0 && !rec.ended) {
              push(rec, now(), "m", `output not recorded: ${rec.dropped} bytes (the recording fell behind)`)
              rec.dropped = 0
            }
          }
        } catch (error) {
          // Nothing more is written: the pipe closes, the file too, and the next call that names the pane
          // starts a new recording (or is refused).
          rec.failure = `writing its recording failed: ${(error as Error).message}`
          rec.queue.length = 0
          rec.queued = 0
          warn(`pane ${rec.pane}: ${rec.failure}`)
          void stop(rec, { label: undefined, pipe: "ours" })
        }
      }

      /** Queues one event, or drops output the disk has not kept up with. */
      const push = (rec: Recording, at: number, code: CastCode, data: string) => {
        if (rec.ended || rec.failure !== undefined) return
        if (code === "o" && rec.queued > limits.queueBytes) {
          rec.dropped += Buffer.byteLength(data)
          return
        }
        const line = eventLine(rec.clock(at), code, data)
        rec.queue.push(line)
        rec.queued += line.length
        // Events go to disk together, a moment later (one write instead of one each), or at once when many wait.
        if (rec.queued >= flushBytes) void pump(rec)
        else {
          rec.flush ??= setTimeout(() => {
            rec.flush = undefined
            void pump(rec)
          }, flushMs)
        }
      }

      /** An event now, or held in order while something is asked of tmux. */
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

      const hold = (rec: Recording) => {
        rec.holds += 1
        rec.held ??= []
      }

      /** One reason to hold fewer; with none left, the held events go, in order. */
      const unhold = (rec: Recording) => {
        if (rec.holds === 0 || --rec.holds > 0) return
        const held = rec.held ?? []
        rec.held = undefined
        rec.heldBytes = 0
        for (const { at, code, data } of held) event(rec, at, code, data)
      }

      /** Asks the pane's size, output held meanwhile: a change becomes an `r` event before that output. */
      const askSize = async (rec: Recording) => {
        hold(rec)
        try {
          const exit = await tmux([["display-message", "-p", "-t", rec.pane, "#{pane_width} #{pane_height}"]])
          if (Exit.isFailure(exit)) return
          const [cols, rows] = exit.value.trim().split(" ").map(Number)
          if (cols === undefined || rows === undefined || !(cols > 0 && rows > 0)) return
          if (cols === rec.cols && rows === rec.rows) return
          rec.cols = cols
          rec.rows = rows
          push(rec, rec.held?.[0]?.at ?? now(), "r", `${cols}x${rows}`)
        } finally {
          unhold(rec)
        }
      }

      const output = (rec: Recording, chunk: Buffer) => {
        const at = now()
        if (rec.holds === 0 && at - rec.lastSizeAsk >= sizeEveryMs) {
          rec.lastSizeAsk = at
          void askSize(rec)
        }
        event(rec, at, "raw", chunk)
      }

      /**
       * Ends a recording: its last marker (and the exit event when the pane went), its pipe closed when
       * it is still ours, its file closed once the queue is written.
       */
      const stop = (rec: Recording, ending: Ending): Promise<void> => {
        if (rec.closed !== undefined) return rec.closed
        rec.holds = Math.min(rec.holds, 1)
        unhold(rec)
        const tail = rec.decoder.decode()
        if (tail !== "") push(rec, now(), "o", tail)
        if (ending.label !== undefined) {
          const at = now()
          push(rec, at, "m", ending.label)
          // A player's timeline ends at the last event and shows only the markers before it: one
          // millisecond later comes the exit, or an empty output.
          if (ending.exit !== undefined) push(rec, at + 1, "x", ending.exit)
          else push(rec, at + 1, "o", "")
        }
        rec.ended = true
        if (recordings.get(rec.pane) === rec) recordings.delete(rec.pane)
        const socket = rec.socket
        rec.socket = undefined
        socket?.destroy()
        clearTimeout(rec.flush)
        rec.flush = undefined
        rec.closed = (async () => {
          if (ending.pipe === "ours") await tmux(closing(rec.pane))
          while (rec.failure === undefined && (rec.writing !== undefined || rec.queue.length > 0)) await pump(rec)
          const fd = rec.fd
          rec.fd = undefined
          if (fd !== undefined) await closeFd(fd)
        })()
        return rec.closed
      }

      /** The pipe ended: the pane went (or its server did), or another `pipe-pane` took it. */
      const pipeEnded = async (rec: Recording) => {
        if (rec.ended) return
        // tmux prints nothing (and succeeds) for a pane it cannot find.
        const exit = await tmux([["display-message", "-p", "-t", rec.pane, "#{pane_id}"]])
        if (Exit.isFailure(exit) || exit.value.trim() !== rec.pane) {
          return stop(rec, {
            label: "pane gone (its exit status is not known once tmux removed it)",
            exit: "-1",
            pipe: "gone"
          })
        }
        return stop(rec, { label: "recording stopped: another pipe-pane took the pane's pipe", pipe: "gone" })
      }

      /** Stops a start when the server stops meanwhile. */
      const stillServing = () => {
        if (stopping) throw new PaneRefused("the server is stopping")
      }

      /**
       * Starts a pane's recording; `absent` when there is no such pane, or it is dead (remain-on-exit):
       * the call's own answer says so, and a respawned pane is recorded after its call.
       */
      const start = async (pane: string): Promise<"recording" | "absent"> => {
        stillServing()
        await checkRecordFolder(folder, uid)
        sequence += 1
        const number = sequence
        const fifo = join(folder, `.${tag}-${number}.fifo`)
        await makeFifo(fifo)
        let hold: number | undefined
        let socket: Socket | undefined
        let piped = false
        try {
          const ends = await openFifo(fifo)
          hold = ends.hold
          const reader = new Socket({ fd: ends.read, readable: true, writable: false })
          socket = reader
          const connected = Promise.withResolvers<void>()
          // Rejected when the pipe closes first: awaited only once tmux has answered.
          connected.promise.catch(() => undefined)
          let chunks: Array<Buffer> | undefined = []
          let rec: Recording | undefined
          let pipeClosed = false
          reader.on("data", (chunk: Buffer) => {
            if (chunks !== undefined) {
              chunks.push(chunk)
              connected.resolve()
            } else if (rec !== undefined) output(rec, chunk)
          })
          reader.on("error", () => undefined)
          reader.on("close", () => {
            pipeClosed = true
            connected.reject(new PaneRefused("tmux's pipe closed before it opened"))
            if (rec !== undefined && rec.socket === reader) void pipeEnded(rec)
          })
          // tmux gives a pane one pipe: one there already is taken over only when it is a recording of
          // this instance's or of a dead one's (a pane option names it).
          const found = await tmux([[
            "display-message",
            "-p",
            "-t",
            pane,
            `#{pane_id} #{pane_dead} #{pane_pipe} #{${recorderOption}}`
          ]])
          stillServing()
          if (Exit.isFailure(found)) {
            const error = Option.getOrUndefined(Cause.findErrorOption(found.cause))
            if (error !== undefined && paneMissing(error)) return "absent"
            throw new PaneRefused(`tmux did not answer: ${error?.message ?? "it failed"}`)
          }
          const [id, dead, pipe, owner = ""] = found.value.trim().split(" ")
          // tmux prints nothing (and succeeds) for a pane it cannot find.
          if (id !== pane || dead === "1") return "absent"
          if (pipe === "1" && !(owner === tag || (owner !== "" && leftBy(owner)))) {
            throw new PaneRefused(
              owner === ""
                ? "it has a pipe already (pipe-pane), and tmux gives a pane one; close that pipe to record it"
                : `another libtmux-mcp instance (${owner}) records it`
            )
          }
          piped = true
          const answer = await tmux([
            ["pipe-pane", "-t", pane, pipeCommand(fifo)],
            ["set-option", "-p", "-t", pane, recorderOption, tag],
            ["display-message", "-p", "-t", pane, "#{pane_width} #{pane_height} #{cursor_x} #{cursor_y}"],
            ["capture-pane", "-p", "-e", "-t", pane]
          ])
          stillServing()
          if (Exit.isFailure(answer)) {
            const error = Option.getOrUndefined(Cause.findErrorOption(answer.cause))
            if (error !== undefined && paneMissing(error)) return "absent"
            throw new PaneRefused(`tmux did not start its pipe: ${error?.message ?? "it failed"}`)
          }
          const [facts = "", ...rows] = answer.value.replace(/\n$/u, "").split("\n")
          const [cols, height, cursorX, cursorY] = facts.split(" ").map(Number)
          const timer = setTimeout(
            () => connected.reject(new PaneRefused(`tmux's pipe did not open within ${connectMs / 1000} s`)),
            connectMs
          )
          try {
            await connected.promise
          } finally {
            clearTimeout(timer)
          }
          stillServing()
          const path = join(folder, castFileName(tag, number, pane, 1))
          const at = now()
          const size = { cols: cols || 80, rows: height || 24 }
          const headerText = headerOf({ ...size, pane, part: 1 })
          // The file and its header first, before the call acts: a folder or disk that refuses them refuses the call.
          const fd = await createCastFile(path)
          await writeAll(fd, Buffer.from(headerText)).catch(async (error: Error) => {
            await closeFd(fd)
            throw new RecordFolderRefused(`its file cannot be written: ${error.message}`)
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
            ...size,
            queue: [],
            queued: 0,
            writing: undefined,
            flush: undefined,
            holds: 0,
            held: undefined,
            heldBytes: 0,
            lastSizeAsk: at,
            dropped: 0,
            decoder: new TextDecoder("utf-8"),
            socket: reader,
            ended: false,
            failure: undefined,
            closed: undefined
          }
          socket = undefined
          recordings.set(pane, rec)
          push(
            rec,
            at,
            "o",
            screenOutput({ rows: rows.slice(0, size.rows), cursorX: cursorX ?? 0, cursorY: cursorY ?? 0 })
          )
          // The first chunk begins with the `R` the pipe's shell wrote.
          const early = Buffer.concat(chunks ?? []).subarray(1)
          chunks = undefined
          if (early.length > 0) output(rec, early)
          // The pipe may have ended while the file was made: the pane went, or another pipe took it.
          if (pipeClosed) void pipeEnded(rec)
          return "recording"
        } catch (error) {
          // Not started: the reader goes, and the pipe made for it (its option names this instance, so
          // a pipe left by a failed close is taken over by the next start).
          socket?.destroy()
          if (piped) await tmux(closing(pane))
          throw error
        } finally {
          if (hold !== undefined) await closeFd(hold)
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
          stopping = true
          // Starts under way give up (and undo themselves) at their next step; they are waited for, briefly.
          await Promise.race([
            Promise.allSettled(starting.values()),
            new Promise((done) => setTimeout(done, 2000))
          ])
          await Promise.all(
            [...recordings.values()].map((rec) =>
              stop(rec, { label: "recording stopped: the server stopped", pipe: "ours" })
            )
          )
        })
      )

      const before = (panes: ReadonlyArray<string>, mark: CallMark) =>
        Effect.gen(function*() {
          for (const pane of panes.filter(isPaneId)) {
            const state = yield* Effect.tryPromise({
              try: () => ensure(pane),
              catch: (error) =>
                new RecordingUnavailable({
                  tool: mark.tool,
                  pane,
                  reason: error instanceof RecordFolderRefused
                    ? `the recording folder ${folder}: ${error.message}`
                    : error instanceof PaneRefused
                    ? error.message
                    : `an internal error: ${String((error as Error).message ?? error)}`
                })
            })
            if (state === "recording") markOn(pane, mark.label)
          }
          // A call that may change the layout holds every pane's output until their sizes are asked
          // after it: a redraw at a new size then follows its `r` event.
          if (mark.layout) {
            const held = [...recordings.values()]
            for (const rec of held) hold(rec)
            layoutHolds.set(mark, held)
          }
        })

      return Recorder.of({
        on: true,
        before,
        after: (named, reached, mark, ended) =>
          Effect.gen(function*() {
            for (const rec of layoutHolds.get(mark) ?? []) {
              void askSize(rec)
              unhold(rec)
            }
            layoutHolds.delete(mark)
            // A pane the call made, or one it named that could not be recorded before (dead, then respawned).
            const fresh = [...new Set([...named, ...reached])].filter((id) => isPaneId(id) && !recordings.has(id))
            for (const pane of fresh) {
              const started = yield* Effect.exit(Effect.tryPromise(() => ensure(pane)))
              if (Exit.isFailure(started)) warn(`pane ${pane} is not recorded: ${String(Cause.squash(started.cause))}`)
              else if (started.value === "recording" && !named.includes(pane)) markOn(pane, mark.label)
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
