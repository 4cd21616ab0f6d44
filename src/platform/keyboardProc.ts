/**
 * The kernel's reads behind domain/keyboard.ts: for each process of a pane's foreground group, its
 * state, wait channel, system call (/proc/<pid>/syscall, where this user may trace it), open
 * descriptors, the descriptors an epoll watches (fdinfo) and those a poll or select waits on (read
 * from the call's arguments in /proc/<pid>/mem, which needs the same right as the syscall file);
 * and the terminal's mode, read as `stty -F` does (a `tcgetattr` on the pane's terminal). Called
 * only while a run waits and the shell is not in front, or once a reader is suspected: never on a
 * ready pane. Nothing here writes to a process or its terminal.
 */
import * as Effect from "effect/Effect"
import { execFile } from "node:child_process"
import {
  awaitsSocket,
  callShape,
  mayWaitOnTerminal,
  parseStty,
  parseSyscall,
  pickFront,
  type ProcessWait,
  type TerminalMode,
  threadWaitOf,
  waitOf,
  wakesByItself
} from "../domain/keyboard.ts"
import { parseProcStat, type ProcStat } from "../domain/procStat.ts"
import { shellKind } from "../domain/shellProtocol.ts"
import type { FrontProcess } from "../services/PaneProcess.ts"
import { type ProcFiles, statOf } from "./Proc.ts"

/** What the reads need of the system (platform/Proc.ts); tests hand them a made-up /proc. @category models */
export type ProcReads = Pick<ProcFiles, "read" | "link" | "list" | "readAt">

/** The command name Node (24 here) gives its main thread, and with it the process. */
const nodeMainThread = "MainThread"

// Bounds: a process tree, the threads read beyond main ones in one look, and a descriptor set, larger
// than any a terminal job has.
const maxProcesses = 256
const maxThreads = 64
const maxPolled = 1024

const childrenOf = (files: ProcReads, pid: number): Array<number> =>
  files.list(`/proc/${pid}/task`).flatMap((task) =>
    (files.read(`/proc/${pid}/task/${task}/children`) ?? "").split(" ").filter((id) => id !== "").map(Number)
  )

const heldBy = (files: ProcReads, pid: number) => (): ReadonlyArray<string> =>
  files.list(`/proc/${pid}/fd`).slice(0, maxPolled).flatMap((fd) => files.link(`/proc/${pid}/fd/${fd}`) ?? [])

const watchedBy = (files: ProcReads, pid: number) => (epollFd: number): ReadonlyArray<number> =>
  [...(files.read(`/proc/${pid}/fdinfo/${epollFd}`) ?? "").matchAll(/^tfd:\s+([0-9]+)/gmu)].map((match) =>
    Number(match[1])
  )

/** The descriptors a poll (pollfd array) or select (read set) call waits to read, from its memory. */
const polledBy = (files: ProcReads, pid: number, syscall: string | undefined, arch: string) => {
  const call = parseSyscall(syscall)
  if (call === undefined) return undefined
  const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const mem = `/proc/${pid}/mem`
  const shape = callShape(call.nr, arch)
  if (shape === "poll") {
    const count = Math.min(call.args[1] ?? 0, maxPolled)
    const bytes = files.readAt(mem, call.args[0] ?? 0, count * 8)
    if (bytes === undefined || bytes.length < count * 8) return undefined
    const data = view(bytes)
    // struct pollfd: int fd, short events, short revents; POLLIN | POLLPRI is a wait to read.
    return Array.from({ length: count }, (_, i) => i).filter((i) => (data.getInt16(i * 8 + 4, true) & 3) !== 0)
      .map((i) => data.getInt32(i * 8, true))
  }
  if (shape === "select") {
    const count = Math.min(call.args[0] ?? 0, maxPolled)
    if ((call.args[1] ?? 0) === 0) return []
    const length = Math.ceil(count / 64) * 8
    const bytes = files.readAt(mem, call.args[1] ?? 0, length)
    if (bytes === undefined || bytes.length < length) return undefined
    return Array.from({ length: count }, (_, fd) => fd).filter((fd) => ((bytes[fd >> 3] ?? 0) >> (fd & 7) & 1) === 1)
  }
  return undefined
}

/** A function's first answer, kept: a process's descriptors and executable are read once for all its threads. */
const once = <A>(read: () => A): () => A => {
  let kept: { readonly value: A } | undefined
  return () => (kept ??= { value: read() }).value
}

/** A process's reads its threads share: its descriptors and memory are one. */
const sharedReads = (files: ProcReads, pid: number) => ({
  target: (fd: number) => files.link(`/proc/${pid}/fd/${fd}`),
  held: once(heldBy(files, pid)),
  watched: watchedBy(files, pid),
  executable: once(() => executableOf(files, pid))
})

/** One thread of process `pid` (`task`: its /proc folder) as waitOf sees it, its wait channel read. */
const threadView = (
  files: ProcReads,
  pid: number,
  shared: ReturnType<typeof sharedReads>,
  task: string,
  comm: string,
  state: string,
  read: string | undefined,
  arch: string
): ProcessWait => {
  // Kernels that hide wchan answer "0" for every process.
  const wchan = read === undefined || read === "0" || read === "" ? undefined : read
  // The call is read only for a process that may be waiting on a terminal.
  const syscall = state === "S" && mayWaitOnTerminal(wchan) ? files.read(`${task}/syscall`) : undefined
  return { comm, state, wchan, syscall, ...shared, polled: () => polledBy(files, pid, syscall, arch) }
}

/** The file name of a process's executable, or `undefined`. */
const executableOf = (files: ProcReads, pid: number): string | undefined => {
  const name = files.link(`/proc/${pid}/exe`)?.replace(/ \(deleted\)$/u, "").split("/").at(-1)
  return name === "" ? undefined : name
}

/**
 * What a process waits on: its main thread's wait, or, when that thread is asleep on anything but
 * the terminal, the first of its other threads the kernel shows reading (or relaying) the terminal
 * (`threadWaitOf`). A Go program such as `terraform` asking "Enter a value" reads the terminal in a
 * thread of its own while the main thread waits on a futex; so does a Node worker or a Python thread
 * that reads it. `budget` counts the threads one look may still read, over all the group's processes.
 */
const threadsWait = (
  files: ProcReads,
  pid: number,
  stat: ProcStat,
  tty: string,
  arch: string,
  budget: { left: number }
) => {
  const shared = sharedReads(files, pid)
  const wchan = stat.state === "S" ? files.read(`/proc/${pid}/wchan`)?.trim() : undefined
  const main = threadView(files, pid, shared, `/proc/${pid}`, stat.comm, stat.state, wchan, arch)
  const mainWait = { view: main, wait: waitOf(main, tty, arch) }
  if (mainWait.wait !== "elsewhere") return mainWait
  const tids = files.list(`/proc/${pid}/task`).filter((tid) => tid !== String(pid))
  const seen = new Map<string, ProcessWait | undefined>()
  /**
   * A thread's view, if it sleeps where a terminal or socket wait does (`undefined` once the budget
   * is spent); each thread is read once in a look, whether as a reader or as a relay's way back.
   */
  const sleeper = (tid: string) => {
    if (!seen.has(tid)) seen.set(tid, readSleeper(tid))
    return seen.get(tid)
  }
  const readSleeper = (tid: string) => {
    if (budget.left-- <= 0) return undefined
    const task = `/proc/${pid}/task/${tid}`
    // One read passes over a thread on a lock or a timer; where the kernel hides wait channels ("0"
    // for every thread, as for a running one), the thread's state is read as well.
    const wchan = files.read(`${task}/wchan`)?.trim()
    if (wchan === undefined || wchan !== "0" && !mayWaitOnTerminal(wchan)) return undefined
    const state = parseProcStat(files.read(`${task}/stat`) ?? "")?.state
    return state === "S" ? threadView(files, pid, shared, task, stat.comm, state, wchan, arch) : undefined
  }
  for (const tid of tids) {
    const view = sleeper(tid)
    if (view === undefined) continue
    // The way back of a relay: another thread (the main one included) waiting on a socket.
    const socketAwaited = () =>
      awaitsSocket(main, arch) ||
      tids.some((other) => {
        if (other === tid) return false
        const waiter = sleeper(other)
        return waiter !== undefined && awaitsSocket(waiter, arch)
      })
    const wait = threadWaitOf(view, tty, arch, socketAwaited)
    if (wait !== "elsewhere") return { view, wait }
  }
  return mainWait
}

/**
 * The process of foreground group `group` (descendants of the pane's process `panePid`, not that
 * process itself) closest to holding the terminal `tty`, with what it waits on. A descendant of a
 * member that left the terminal's session (it has no controlling terminal: `su -c` starts its
 * command so, as `setsid` does) counts with the group: it still reads the terminal through the
 * descriptors it inherited, and no job control stops it, while its parent in front waits for it.
 */
export const frontFrom =
  (files: ProcReads, arch: string) => (panePid: number, group: number, tty: string): FrontProcess | undefined => {
    const members: Array<FrontProcess> = []
    const budget = { left: maxThreads }
    const queue: Array<{ readonly pid: number; readonly underMember: boolean }> = [{
      pid: panePid,
      underMember: false
    }]
    for (let seen = 0; queue.length > 0 && seen < maxProcesses; seen++) {
      const { pid, underMember } = queue.shift()!
      const stat = statOf(files, pid)
      const member = stat !== undefined && pid !== panePid &&
        (stat.pgrp === group || (underMember && stat.ttyNr === 0))
      if (member) {
        const { view, wait } = threadsWait(files, pid, stat, tty, arch, budget)
        members.push({
          pid,
          program: stat.comm,
          programIsShell: shellKind(stat.comm) !== undefined,
          wait,
          wakes: wakesByItself(view.syscall, arch)
        })
      }
      queue.push(...childrenOf(files, pid).map((child) => ({ pid: child, underMember: member })))
    }
    const front = pickFront(members)
    if (front === undefined) return undefined
    // Read for the one that speaks for the group only: the quit advice goes by it (domain/quitAdvice.ts).
    const executable = executableOf(files, front.pid)
    if (executable === undefined) return front
    // Node names its main thread, and so the process's command name, "MainThread": the agent ran `node`.
    return { ...front, executable, ...(front.program === nodeMainThread ? { program: executable } : {}) }
  }

/** Terminal device paths tmux reports: nothing else is ever opened. */
const terminalPath = /^\/dev\/(pts\/[0-9]{1,7}|tty[A-Za-z0-9]{0,8})$/u

/** The terminal's mode as `stty -F TTY -a` reads it (it opens the terminal without taking it), or `undefined`. */
export const terminalMode = (tty: string): Effect.Effect<TerminalMode | undefined> =>
  terminalPath.test(tty)
    ? Effect.callback<TerminalMode | undefined>((resume, signal) => {
      execFile("stty", ["-F", tty, "-a"], { signal, timeout: 2_000, encoding: "utf8" }, (error, stdout) => {
        resume(Effect.succeed(error === null ? parseStty(stdout) : undefined))
      })
    })
    : Effect.succeed(undefined)
