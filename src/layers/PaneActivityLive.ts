/**
 * The live pacer: the kernel says whether anything can have changed a pane since the last look,
 * so a waiting loop asks tmux only then. Every byte a pane's programs write reaches the screen
 * through the tmux server's read(2) of the pane's terminal, which counts it in the server's
 * `rchar` (/proc/<pid>/io); tmux clients talk to the server with recvmsg(2), which that count
 * leaves out, and the server's read(2)s of this process's control connections are taken off it
 * (`controlBytesWritten`), so the looks themselves do not move it. The pane's process is checked too (gone,
 * or no longer the server's child: killed, respawned, or the server gone). Where /proc cannot
 * show the server as the pane's parent (not Linux, tmux in another pid namespace, another
 * user's server), the signal cannot tell and the looks are only spaced out (src/domain/pacing.ts).
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { afterLook, freshPace, type Pace, tick, tickAfter } from "../domain/pacing.ts"
import { liveProcFiles, type ProcFiles as AllProcFiles, statOf } from "../platform/Proc.ts"
import { controlBytesWritten } from "../platform/TmuxControl.ts"
import type { Pacer } from "../services/PaneReader.ts"

type ProcFiles = Pick<AllProcFiles, "read">

/** The pane a pacer watches: its process, and the tmux server's when known. @category models */
export interface PacedPane {
  readonly panePid: number
  readonly serverPid: number | undefined
}

/** The server's read count, as text (it can pass 2^53), or undefined. */
const readCount = (files: ProcFiles, serverPid: number): string | undefined =>
  /^rchar:\s*(\d+)$/mu.exec(files.read(`/proc/${serverPid}/io`) ?? "")?.[1]

/** The parent of a process, from /proc/<pid>/stat (whose name field may hold spaces and parentheses). */
const parentOf = (files: ProcFiles, pid: number): number | undefined => {
  const parent = statOf(files, pid)?.ppid
  return parent !== undefined && Number.isInteger(parent) ? parent : undefined
}

/**
 * The kernel's signal for one pane: a function that says whether the pane can have changed since
 * its previous call (the first: since the signal was made), or undefined when /proc cannot show it.
 */
export const kernelSignal = (
  files: ProcFiles,
  pane: PacedPane,
  ownBytes: () => number = controlBytesWritten
): (() => boolean) | undefined => {
  const server = pane.serverPid
  if (server === undefined || server <= 0 || parentOf(files, pane.panePid) !== server) return undefined
  let last = readCount(files, server)
  if (last === undefined) return undefined
  let own = ownBytes()
  return () => {
    const count = readCount(files, server)
    const written = ownBytes()
    // What the server read beyond the commands this process wrote to it over its control
    // connections since (which it reads with read(2) too); counts reach 2^64, so BigInt.
    const changed = count === undefined || last === undefined ||
      BigInt(count) - BigInt(last) > BigInt(written - own) || parentOf(files, pane.panePid) !== server
    // Unchanged, the window keeps growing from the same start: commands written but not yet read
    // now are read later, within it.
    if (changed) {
      last = count
      own = written
    }
    return changed
  }
}

/** A pacer over `files` (the live /proc by default). @category constructors */
export const makePacer = (pane: PacedPane, files: ProcFiles = liveProcFiles): Effect.Effect<Pacer> =>
  Effect.sync(() => {
    const signal = kernelSignal(files, pane)
    let pace: Pace = freshPace
    return {
      due: Effect.map(Clock.currentTimeMillis, (now) => {
        const next = tick(pace, now, signal?.())
        pace = next.pace
        return next.due
      }),
      looked: (key) => Effect.map(Clock.currentTimeMillis, (now) => void (pace = afterLook(pace, now, key))),
      tickMs: Effect.map(Clock.currentTimeMillis, (now) => tickAfter(pace, now))
    }
  })
