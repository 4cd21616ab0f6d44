/**
 * One audit line per write(2), whole or absent. A short write (a full disk) leaves part of a line:
 * it is cut off again (ftruncate back to where the write began), so the file holds whole lines
 * only. Where that cannot be done (stderr is a pipe or a terminal, or the truncation fails), the
 * next write first ends the torn line and writes an `audit_torn` record saying the line above is
 * a fragment, so a record never continues someone else's partial line. The system calls run on
 * libuv's threadpool: a write that never returns (a frozen file system) holds a promise, not the
 * thread that answers requests. The caller runs one write at a time (AuditLive.ts's queue).
 */
import { fstat, ftruncate, write } from "node:fs"

/** The system calls the write path makes; tests hand it a writer that writes short. @category models */
export interface FdIo {
  /** write(2): the bytes it took; rejects with the errno. */
  readonly write: (fd: number, bytes: Uint8Array) => Promise<number>
  /** fstat(2)'s size. */
  readonly size: (fd: number) => Promise<number>
  /** ftruncate(2). */
  readonly truncate: (fd: number, length: number) => Promise<void>
}

/** The real system calls. @category layers */
export const nodeIo: FdIo = {
  write: (fd, bytes) =>
    new Promise((resolve, reject) => write(fd, bytes, (error, count) => error ? reject(error) : resolve(count))),
  size: (fd) =>
    new Promise((resolve, reject) => fstat(fd, (error, stats) => error ? reject(error) : resolve(stats.size))),
  truncate: (fd, length) =>
    new Promise((resolve, reject) => ftruncate(fd, length, (error) => error ? reject(error) : resolve()))
}

/** A write's result. @category models */
export type Written = { readonly ok: true } | { readonly ok: false; readonly code: string; readonly detail: string }

const whole: Written = { ok: true }

type Attempt =
  | { readonly kind: "whole" }
  | { readonly kind: "absent"; readonly code: string; readonly detail: string }
  | { readonly kind: "torn"; readonly left: number; readonly detail: string }

/**
 * Writes `line` to descriptors; each keeps the fragment a failed write left behind (if any) until
 * it is marked. `now` stamps the marker.
 */
/** `instance` is the writing process's tag, which every audit line carries. */
export const lineWriter = (io: FdIo, now: () => string, instance?: string) => {
  const torn = new Map<number, number>()

  const attempt = async (fd: number, bytes: Uint8Array): Promise<Attempt> => {
    let count: number
    try {
      count = await io.write(fd, bytes)
    } catch (error) {
      const failure = error as NodeJS.ErrnoException
      return { kind: "absent", code: failure.code ?? "error", detail: failure.message }
    }
    if (count === bytes.length) return { kind: "whole" }
    const detail = `only ${count} of ${bytes.length} bytes were written (is the disk full?)`
    if (count === 0) return { kind: "absent", code: "short write", detail }
    try {
      // The file's end less what this write took, not an fstat before it: a normal write costs no extra call.
      const end = await io.size(fd)
      if (end < count) throw new Error("the file is shorter than the write")
      await io.truncate(fd, end - count)
      return { kind: "absent", code: "short write", detail: `${detail}; the partial line was removed` }
    } catch {
      return { kind: "torn", left: count, detail }
    }
  }

  /** Ends and marks a fragment left on `fd`; false while that cannot be written. */
  const mark = async (fd: number): Promise<Written> => {
    const left = torn.get(fd)
    if (left === undefined) return whole
    const marker = `\n${JSON.stringify({ event: "audit_torn", instance, time: now(), bytes: left })}\n`
    const result = await attempt(fd, Buffer.from(marker, "utf8"))
    if (result.kind === "whole") {
      torn.delete(fd)
      return whole
    }
    // Once the newline is out the old fragment has ended; what is left is the marker's own.
    if (result.kind === "torn") torn.set(fd, result.left - 1)
    return result.kind === "torn"
      ? { ok: false, code: "short write", detail: result.detail }
      : { ok: false, code: result.code, detail: result.detail }
  }

  /** One write(2) of the whole line, or why not; the line is then whole or absent. */
  const write = async (fd: number, line: string): Promise<Written> => {
    const marked = await mark(fd)
    if (!marked.ok) return marked
    const result = await attempt(fd, Buffer.from(line, "utf8"))
    if (result.kind === "whole") return whole
    if (result.kind === "absent") return { ok: false, code: result.code, detail: result.detail }
    torn.set(fd, result.left)
    return { ok: false, code: "short write", detail: result.detail }
  }

  /** Forgets a descriptor that was closed (its number may be given to another file). */
  const forget = (fd: number): void => void torn.delete(fd)

  return { write, forget }
}
