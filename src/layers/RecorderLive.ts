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

/** What every recording of this instance shares: where and how much it keeps, who it is, and its recordings. */
interface Recorders {
  readonly folder: string
  readonly limits: RecordLimits
  /** This instance's tag: it names its files and, in a pane option, its pipes. */
  readonly tag: string
  readonly socketPath: string
  readonly uid: number
  /** Whether a recorder's tag is a dead instance's: its pipe is left over, and may be taken. */
  readonly leftBy: (owner: string) => boolean
  readonly tmux: (commands: ReadonlyArray<ReadonlyArray<string>>) => Promise<Exit.Exit<string, TmuxError>>
  readonly warn: (text: string) => void
  readonly recordings: Map<string, Recording>
  readonly starting: Map<string, Promise<"recording" | "absent">>
  /** The recordings a call that may change the layout holds, until it ends. */
  readonly layoutHolds: Map<CallMark, ReadonlyArray<Recording>>
  sequence: number
  stopping: boolean
}

const now = () => Date.now()

const headerOf = (r: Recorders, rec: Pick<Recording, "cols" | "rows" | "pane" | "part">) =>
  headerLine({
    cols: rec.cols,
    rows: rec.rows,
    timestamp: Math.floor(now() / 1000),
    instance: r.tag,
    socket: r.socketPath,
    pane: rec.pane,
    part: rec.part
  })

/** Closes the full part and begins the next, with its own header; parts beyond those kept are deleted. */
const nextPart = async (r: Recorders, rec: Recording): Promise<void> => {
  const full = rec.fd
  rec.fd = undefined
  if (full !== undefined) await closeFd(full)
  rec.part += 1
  const path = join(r.folder, castFileName(r.tag, rec.sequence, rec.pane, rec.part))
  await checkRecordFolder(r.folder, r.uid)
  const fd = await createCastFile(path)
  rec.fd = fd
  rec.parts.push(path)
  while (rec.parts.length > r.limits.partsKept) await removeFile(rec.parts.shift()!)
  const header = Buffer.from(headerOf(r, rec))
  await writeAll(fd, header)
  rec.headerBytes = header.length
  rec.eventBytes = 0
}

/**
 * Writes the queue out, a part at a time, one writer a recording (the one in progress is returned);
 * a failure ends the recording, said in the server log.
 */
const pump = (r: Recorders, rec: Recording): Promise<void> => {
  if (rec.failure !== undefined) return Promise.resolve()
  rec.writing ??= writeQueue(r, rec).finally(() => (rec.writing = undefined))
  return rec.writing
}

const writeQueue = async (r: Recorders, rec: Recording): Promise<void> => {
  const partBytes = r.limits.partBytes
  try {
    while (rec.queue.length > 0) {
      // The lines that fit in this part (one at least): a part ends at a line, near its limit.
      const sizes = rec.queue.map((line) => Buffer.byteLength(line))
      if (rec.eventBytes > 0 && rec.eventBytes + rec.headerBytes + sizes[0]! > partBytes) await nextPart(r, rec)
      let take = 1
      let size = sizes[0]!
      while (take < sizes.length && rec.eventBytes + rec.headerBytes + size + sizes[take]! <= partBytes) {
        size += sizes[take]!
        take += 1
      }
      if (rec.fd === undefined) throw new Error("its file is closed")
      const lines = rec.queue.splice(0, take)
      rec.queued -= lines.reduce((sum, line) => sum + line.length, 0)
      await writeAll(rec.fd, Buffer.from(lines.join("")))
      rec.eventBytes += size
      if (rec.dropped > 0 && !rec.ended) {
        push(r, rec, now(), "m", `output not recorded: ${rec.dropped} bytes (the recording fell behind)`)
        rec.dropped = 0
      }
    }
  } catch (error) {
    // Nothing more is written: the pipe closes, the file too, and the next call that names the pane
    // starts a new recording (or is refused).
    rec.failure = `writing its recording failed: ${(error as Error).message}`
    rec.queue.length = 0
    rec.queued = 0
    r.warn(`pane ${rec.pane}: ${rec.failure}`)
    void stop(r, rec, { label: undefined, pipe: "ours" })
  }
}

/** Queues one event, or drops output the disk has not kept up with. */
const push = (r: Recorders, rec: Recording, at: number, code: CastCode, data: string) => {
  if (rec.ended || rec.failure !== undefined) return
  if (code === "o" && rec.queued > r.limits.queueBytes) {
    rec.dropped += Buffer.byteLength(data)
    return
  }
  const line = eventLine(rec.clock(at), code, data)
  rec.queue.push(line)
  rec.queued += line.length
  // Events go to disk together, a moment later (one write instead of one each), or at once when many wait.
  if (rec.queued >= flushBytes) void pump(r, rec)
  else {
    rec.flush ??= setTimeout(() => {
      rec.flush = undefined
      void pump(r, rec)
    }, flushMs)
  }
}

/** An event now, or held in order while something is asked of tmux. */
const event = (r: Recorders, rec: Recording, at: number, code: CastCode | "raw", data: string | Buffer) => {
  if (rec.held !== undefined) {
    if (code === "raw" && rec.heldBytes > r.limits.queueBytes) {
      rec.dropped += data.length
      return
    }
    rec.held.push({ at, code, data })
    rec.heldBytes += data.length
    return
  }
  if (code !== "raw") return push(r, rec, at, code, data as string)
  for (const piece of pieces(rec.decoder.decode(data as Buffer, { stream: true }))) push(r, rec, at, "o", piece)
}

const hold = (rec: Recording) => {
  rec.holds += 1
  rec.held ??= []
}

/** One reason to hold fewer; with none left, the held events go, in order. */
const unhold = (r: Recorders, rec: Recording) => {
  if (rec.holds === 0 || --rec.holds > 0) return
  const held = rec.held ?? []
  rec.held = undefined
  rec.heldBytes = 0
  for (const { at, code, data } of held) event(r, rec, at, code, data)
}

/** Asks the pane's size, output held meanwhile: a change becomes an `r` event before that output. */
const askSize = async (r: Recorders, rec: Recording) => {
  hold(rec)
  try {
    const exit = await r.tmux([["display-message", "-p", "-t", rec.pane, "#{pane_width} #{pane_height}"]])
    if (Exit.isFailure(exit)) return
    const [cols, rows] = exit.value.trim().split(" ").map(Number)
    if (cols === undefined || rows === undefined || !(cols > 0 && rows > 0)) return
    if (cols === rec.cols && rows === rec.rows) return
    rec.cols = cols
    rec.rows = rows
    push(r, rec, rec.held?.[0]?.at ?? now(), "r", `${cols}x${rows}`)
  } finally {
    unhold(r, rec)
  }
}

const output = (r: Recorders, rec: Recording, chunk: Buffer) => {
  const at = now()
  if (rec.holds === 0 && at - rec.lastSizeAsk >= sizeEveryMs) {
    rec.lastSizeAsk = at
    void askSize(r, rec)
  }
  event(r, rec, at, "raw", chunk)
}

/**
 * Ends a recording: its last marker (and the exit event when the pane went), its pipe closed when
 * it is still ours, its file closed once the queue is written.
 */
const stop = (r: Recorders, rec: Recording, ending: Ending): Promise<void> => {
  if (rec.closed !== undefined) return rec.closed
  rec.holds = Math.min(rec.holds, 1)
  unhold(r, rec)
  const tail = rec.decoder.decode()
  if (tail !== "") push(r, rec, now(), "o", tail)
  if (ending.label !== undefined) {
    const at = now()
    push(r, rec, at, "m", ending.label)
    // A player's timeline ends at the last event and shows only the markers before it: one
    // millisecond later comes the exit, or an empty output.
    if (ending.exit !== undefined) push(r, rec, at + 1, "x", ending.exit)
    else push(r, rec, at + 1, "o", "")
  }
  rec.ended = true
  if (r.recordings.get(rec.pane) === rec) r.recordings.delete(rec.pane)
  const socket = rec.socket
  rec.socket = undefined
  socket?.destroy()
  clearTimeout(rec.flush)
  rec.flush = undefined
  rec.closed = (async () => {
    if (ending.pipe === "ours") await r.tmux(closing(rec.pane))
    while (rec.failure === undefined && (rec.writing !== undefined || rec.queue.length > 0)) await pump(r, rec)
    const fd = rec.fd
    rec.fd = undefined
    if (fd !== undefined) await closeFd(fd)
  })()
  return rec.closed
}

/** The pipe ended: the pane went (or its server did), or another `pipe-pane` took it. */
const pipeEnded = async (r: Recorders, rec: Recording) => {
  if (rec.ended) return
  // tmux prints nothing (and succeeds) for a pane it cannot find.
  const exit = await r.tmux([["display-message", "-p", "-t", rec.pane, "#{pane_id}"]])
  if (Exit.isFailure(exit) || exit.value.trim() !== rec.pane) {
    return stop(r, rec, {
      label: "pane gone (its exit status is not known once tmux removed it)",
      exit: "-1",
      pipe: "gone"
    })
  }
  return stop(r, rec, { label: "recording stopped: another pipe-pane took the pane's pipe", pipe: "gone" })
}

/** Stops a start when the server stops meanwhile. */
const stillServing = (r: Recorders) => {
  if (r.stopping) throw new PaneRefused("the server is stopping")
}

/**
 * A start under way: the FIFO's reader, what it read before the recording exists (the pipe's `R`
 * first), the recording once it does, and whether tmux's pipe was asked for or has closed.
 */
interface Start {
  readonly reader: Socket
  /** Resolves at the pipe's first bytes; rejected when it closes first (awaited once tmux answered). */
  readonly connected: PromiseWithResolvers<void>
  chunks: Array<Buffer> | undefined
  rec: Recording | undefined
  piped: boolean
  pipeClosed: boolean
}

/** Reads the FIFO's read end: early bytes kept for the recording, later ones its output. */
const listen = (r: Recorders, fd: number): Start => {
  const reader = new Socket({ fd, readable: true, writable: false })
  const started: Start = {
    reader,
    connected: Promise.withResolvers<void>(),
    chunks: [],
    rec: undefined,
    piped: false,
    pipeClosed: false
  }
  started.connected.promise.catch(() => undefined)
  reader.on("data", (chunk: Buffer) => {
    if (started.chunks !== undefined) {
      started.chunks.push(chunk)
      started.connected.resolve()
    } else if (started.rec !== undefined) output(r, started.rec, chunk)
  })
  reader.on("error", () => undefined)
  reader.on("close", () => {
    started.pipeClosed = true
    started.connected.reject(new PaneRefused("tmux's pipe closed before it opened"))
    if (started.rec !== undefined && started.rec.socket === reader) void pipeEnded(r, started.rec)
  })
  return started
}

/** What tmux answered a pipe's start with; `undefined` for a pane that is not there, `PaneRefused` otherwise. */
const answered = (exit: Exit.Exit<string, TmuxError>, what: string): string | undefined => {
  if (Exit.isSuccess(exit)) return exit.value
  const error = Option.getOrUndefined(Cause.findErrorOption(exit.cause))
  if (error !== undefined && paneMissing(error)) return undefined
  throw new PaneRefused(`tmux did not ${what}: ${error?.message ?? "it failed"}`)
}

/** A pane as a recording starts from it: its size, its cursor and its screen's rows. */
interface PaneView {
  readonly cols: number
  readonly rows: number
  readonly cursorX: number
  readonly cursorY: number
  readonly screen: ReadonlyArray<string>
}

/**
 * Points the pane's pipe at `fifo`, after checking that the pane has no pipe but one this instance
 * or a dead one left (a pane option names it: tmux gives a pane one pipe); the pane's size, cursor
 * and screen, or `absent` (no such pane, or a dead one).
 */
const pipeInto = async (r: Recorders, pane: string, fifo: string, started: Start): Promise<PaneView | "absent"> => {
  const look = await r.tmux([[
    "display-message",
    "-p",
    "-t",
    pane,
    `#{pane_id} #{pane_dead} #{pane_pipe} #{${recorderOption}}`
  ]])
  stillServing(r)
  const found = answered(look, "answer")
  if (found === undefined) return "absent"
  const [id, dead, pipe, owner = ""] = found.trim().split(" ")
  // tmux prints nothing (and succeeds) for a pane it cannot find.
  if (id !== pane || dead === "1") return "absent"
  if (pipe === "1" && !(owner === r.tag || (owner !== "" && r.leftBy(owner)))) {
    throw new PaneRefused(
      owner === ""
        ? "it has a pipe already (pipe-pane), and tmux gives a pane one; close that pipe to record it"
        : `another libtmux-mcp instance (${owner}) records it`
    )
  }
  started.piped = true
  const piping = await r.tmux([
    ["pipe-pane", "-t", pane, pipeCommand(fifo)],
    ["set-option", "-p", "-t", pane, recorderOption, r.tag],
    ["display-message", "-p", "-t", pane, "#{pane_width} #{pane_height} #{cursor_x} #{cursor_y}"],
    ["capture-pane", "-p", "-e", "-t", pane]
  ])
  stillServing(r)
  const screen = answered(piping, "start its pipe")
  if (screen === undefined) return "absent"
  const [facts = "", ...rows] = screen.replace(/\n$/u, "").split("\n")
  const [cols, height, cursorX, cursorY] = facts.split(" ").map(Number)
  return { cols: cols || 80, rows: height || 24, cursorX: cursorX ?? 0, cursorY: cursorY ?? 0, screen: rows }
}

/** Waits for the pipe's first bytes (its `R`), at most `connectMs`. */
const opened = async (started: Start) => {
  const timer = setTimeout(
    () => started.connected.reject(new PaneRefused(`tmux's pipe did not open within ${connectMs / 1000} s`)),
    connectMs
  )
  try {
    await started.connected.promise
  } finally {
    clearTimeout(timer)
  }
}

/**
 * The recording's first file and header (before the call acts: a folder or disk that refuses them
 * refuses the call), then the recording, its first event the screen as tmux shows it.
 */
const begin = async (
  r: Recorders,
  pane: string,
  number: number,
  view: PaneView,
  reader: Socket
): Promise<Recording> => {
  const path = join(r.folder, castFileName(r.tag, number, pane, 1))
  const at = now()
  const headerText = headerOf(r, { cols: view.cols, rows: view.rows, pane, part: 1 })
  const fd = await createCastFile(path)
  await writeAll(fd, Buffer.from(headerText)).catch(async (error: Error) => {
    await closeFd(fd)
    throw new RecordFolderRefused(`its file cannot be written: ${error.message}`)
  })
  const rec: Recording = {
    pane,
    sequence: number,
    part: 1,
    fd,
    headerBytes: Buffer.byteLength(headerText),
    eventBytes: 0,
    parts: [path],
    clock: castClock(at),
    cols: view.cols,
    rows: view.rows,
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
  r.recordings.set(pane, rec)
  push(
    r,
    rec,
    at,
    "o",
    screenOutput({ rows: view.screen.slice(0, view.rows), cursorX: view.cursorX, cursorY: view.cursorY })
  )
  return rec
}

/**
 * Starts a pane's recording; `absent` when there is no such pane, or it is dead (remain-on-exit):
 * the call's own answer says so, and a respawned pane is recorded after its call.
 */
const start = async (r: Recorders, pane: string): Promise<"recording" | "absent"> => {
  stillServing(r)
  await checkRecordFolder(r.folder, r.uid)
  const number = ++r.sequence
  const fifo = join(r.folder, `.${r.tag}-${number}.fifo`)
  await makeFifo(fifo)
  let holder: number | undefined
  let started: Start | undefined
  try {
    const ends = await openFifo(fifo)
    holder = ends.hold
    started = listen(r, ends.read)
    const piped = await pipeInto(r, pane, fifo, started)
    if (piped === "absent") return "absent"
    await opened(started)
    stillServing(r)
    const rec = await begin(r, pane, number, piped, started.reader)
    started.rec = rec
    // The first chunk begins with the `R` the pipe's shell wrote.
    const early = Buffer.concat(started.chunks ?? []).subarray(1)
    started.chunks = undefined
    if (early.length > 0) output(r, rec, early)
    // The pipe may have ended while the file was made: the pane went, or another pipe took it.
    if (started.pipeClosed) void pipeEnded(r, rec)
    return "recording"
  } catch (error) {
    // Not started: the reader goes, and the pipe made for it (its option names this instance, so
    // a pipe left by a failed close is taken over by the next start).
    started?.reader.destroy()
    if (started?.piped === true) await r.tmux(closing(pane))
    throw error
  } finally {
    if (holder !== undefined) await closeFd(holder)
    await removeFile(fifo)
  }
}

/** The pane's recording, started when it has none; single flight per pane. */
const ensure = (r: Recorders, pane: string): Promise<"recording" | "absent"> => {
  if (r.recordings.has(pane)) return Promise.resolve("recording")
  const pending = r.starting.get(pane)
  if (pending !== undefined) return pending
  const started = start(r, pane).finally(() => r.starting.delete(pane))
  r.starting.set(pane, started)
  return started
}

const markOn = (r: Recorders, pane: string, label: string) => {
  const rec = r.recordings.get(pane)
  if (rec !== undefined) event(r, rec, now(), "m", label)
}

/** Ends every recording as the server stops; starts under way give up at their next step, waited for briefly. */
const stopAll = async (r: Recorders) => {
  r.stopping = true
  await Promise.race([Promise.allSettled(r.starting.values()), new Promise((done) => setTimeout(done, 2000))])
  await Promise.all(
    [...r.recordings.values()].map((rec) =>
      stop(r, rec, { label: "recording stopped: the server stopped", pipe: "ours" })
    )
  )
}

/**
 * Before a call acts: the panes it names recorded (one that cannot be refuses the call), and every
 * pane's output held when the call may change the layout.
 */
const before = (r: Recorders, panes: ReadonlyArray<string>, mark: CallMark) =>
  Effect.gen(function*() {
    for (const pane of panes.filter(isPaneId)) {
      const state = yield* Effect.tryPromise({
        try: () => ensure(r, pane),
        catch: (error) =>
          new RecordingUnavailable({
            tool: mark.tool,
            pane,
            reason: error instanceof RecordFolderRefused
              ? `the recording folder ${r.folder}: ${error.message}`
              : error instanceof PaneRefused
              ? error.message
              : `an internal error: ${String((error as Error).message ?? error)}`
          })
      })
      if (state === "recording") markOn(r, pane, mark.label)
    }
    // A call that may change the layout holds every pane's output until their sizes are asked
    // after it: a redraw at a new size then follows its `r` event.
    if (mark.layout) {
      const held = [...r.recordings.values()]
      for (const rec of held) hold(rec)
      r.layoutHolds.set(mark, held)
    }
  })

/** After a call: the held output let go, the panes it made recorded, and its run's exit marked. */
const after = (
  r: Recorders,
  named: ReadonlyArray<string>,
  reached: ReadonlyArray<string>,
  mark: CallMark,
  ended: { readonly pane: string; readonly status: number } | undefined
) =>
  Effect.gen(function*() {
    for (const rec of r.layoutHolds.get(mark) ?? []) {
      void askSize(r, rec)
      unhold(r, rec)
    }
    r.layoutHolds.delete(mark)
    // A pane the call made, or one it named that could not be recorded before (dead, then respawned).
    const fresh = [...new Set([...named, ...reached])].filter((id) => isPaneId(id) && !r.recordings.has(id))
    for (const pane of fresh) {
      const started = yield* Effect.exit(Effect.tryPromise(() => ensure(r, pane)))
      if (Exit.isFailure(started)) r.warn(`pane ${pane} is not recorded: ${String(Cause.squash(started.cause))}`)
      else if (started.value === "recording" && !named.includes(pane)) markOn(r, pane, mark.label)
    }
    if (ended !== undefined) markOn(r, ended.pane, `exit ${ended.status} (${mark.label})`)
  })

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
      const r: Recorders = {
        folder,
        limits,
        tag,
        socketPath: pin.resolvedPath,
        uid: process.getuid?.() ?? 0,
        leftBy: (owner) => {
          const instance = parseTag(owner)
          return instance !== undefined && instance.started !== 0 && judgeInstance(instance, view) === "dead"
        },
        tmux: (commands) => Effect.runPromise(Effect.exit(upkeep.run(commands, { timeoutMs: 5000 }))),
        warn: (text) => log.line("warning", `libtmux-mcp warning: recording: ${text}`),
        recordings: new Map(),
        starting: new Map(),
        layoutHolds: new Map(),
        sequence: 0,
        stopping: false
      }
      yield* Effect.addFinalizer(() => Effect.promise(() => stopAll(r)))
      return Recorder.of({
        on: true,
        before: (panes, mark) => before(r, panes, mark),
        after: (named, reached, mark, ended) => after(r, named, reached, mark, ended),
        status: Effect.sync(() => ({
          folder,
          panes: [...r.recordings.keys()],
          part_bytes: limits.partBytes,
          parts_kept: limits.partsKept
        }))
      })
    })
  ).pipe(Layer.provide(procLayer))

/** Recording off: nothing is recorded, and nothing costs more. @category layers */
export const off: Layer.Layer<Recorder> = Layer.succeed(Recorder, recordingOff)
