/**
 * The kernel's view of a pane's processes, from /proc. Field 8 of /proc/<pid>/stat is the
 * foreground process group of the process's controlling terminal; /proc/<pid>/wchan names where a
 * sleeping process waits. A shell idle at its prompt is asleep in a terminal or poll wait (bash and
 * fish poll, zsh and dash wait in the terminal's read); a shell still running its rc file is
 * running (`R`) or waiting for a child (`do_wait`). Elsewhere than Linux every answer is
 * `undefined` and callers fall back to tmux's view.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { readFileSync, readlinkSync, statSync } from "node:fs"
import { programName, unseenReason } from "../domain/paneView.ts"
import { frontFrom, liveProcReads, terminalMode } from "../platform/keyboardProc.ts"
import { PaneProcess, type ShellProcess } from "../services/PaneProcess.ts"

// /proc reads never block on a disk: read them synchronously, without a threadpool round trip.
const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}

/** What `shell` reads from the system; tests hand it a made-up /proc. @category models */
export interface ProcFiles {
  /** A file's text, or `undefined`. */
  readonly read: (path: string) => string | undefined
  /** A symbolic link's target, or `undefined`. */
  readonly link: (path: string) => string | undefined
  /** A device file's device number (rdev), or `undefined`. */
  readonly device: (path: string) => number | undefined
}

const orUndefined = <A>(f: () => A): A | undefined => {
  try {
    return f()
  } catch {
    return undefined
  }
}

/** The live system. @category layers */
export const liveProcFiles: ProcFiles = {
  read,
  link: (path) => orUndefined(() => readlinkSync(path)),
  device: (path) => orUndefined(() => statSync(path).rdev)
}

interface Stat {
  readonly comm: string
  readonly state: string
  readonly pgrp: number
  /** The controlling terminal's device number (0 for none). */
  readonly ttyNr: number
  readonly tpgid: number
  /** Start time, in clock ticks after boot. */
  readonly started: number
  /** Fields 48-51 (arg_start, arg_end, env_start, env_end), or `undefined` when hidden (zeros). */
  readonly image: string | undefined
}

const stat = (pid: number, files: ProcFiles = liveProcFiles): Stat | undefined => {
  const text = files.read(`/proc/${pid}/stat`)
  if (text === undefined) return undefined
  // The command name is in parentheses and may itself hold spaces or parentheses.
  const close = text.lastIndexOf(")")
  const fields = text.slice(close + 2).split(" ")
  return {
    comm: text.slice(text.indexOf("(") + 1, close),
    state: fields[0] ?? "",
    pgrp: Number(fields[2]),
    ttyNr: Number(fields[4]),
    tpgid: Number(fields[5]),
    started: Number(fields[19]),
    image: fields.length >= 49 && fields.slice(45, 49).some((field) => field !== "0")
      ? fields.slice(45, 49).join(" ")
      : undefined
  }
}

/** Where a process idle at a prompt sleeps (measured: bash, fish poll; zsh, dash read the tty). */
const promptWaits = ["poll_schedule_timeout", "do_select", "wait_woken", "n_tty_read"]

const waitsIn = (pid: number, waits: ReadonlyArray<string>, files: ProcFiles = liveProcFiles): boolean | undefined => {
  const wchan = files.read(`/proc/${pid}/wchan`)?.trim()
  // Kernels that hide wchan answer "0" for every process.
  if (wchan === undefined || wchan === "0" || wchan === "") return undefined
  return waits.some((wait) => wchan.startsWith(wait))
}

/** A record that says only that the pane's process cannot be seen. */
const unseen = (reason: string): ShellProcess => ({
  comm: "",
  inForeground: false,
  reading: false,
  foreground: "",
  foregroundGroup: 0,
  unseen: reason
})

/**
 * The pane's process from `files`. With the pane's terminal, /proc/<pid> counts only when it is the
 * pane's process (see paneView.ts), and the program it runs is read; where there is no /proc at
 * all (not Linux) there is nothing to check and nothing is said.
 */
export const shellFrom = (files: ProcFiles) => (panePid: number, tty?: string): ShellProcess | undefined => {
  const own = stat(panePid, files)
  const checked = tty !== undefined && tty !== "" && (own !== undefined || files.read("/proc/self/stat") !== undefined)
  if (checked) {
    const reason = unseenReason({
      pid: panePid,
      comm: own?.comm,
      ttyNr: own?.ttyNr ?? 0,
      tty,
      rdev: files.device(tty)
    })
    if (reason !== undefined) return unseen(reason)
  }
  if (own === undefined) return undefined
  const inForeground = own.tpgid === own.pgrp
  const reading = own.state === "S" && inForeground && (waitsIn(panePid, promptWaits, files) ?? true)
  const leader = inForeground ? own : stat(own.tpgid, files)
  // USER_HZ is 100 on every Linux architecture.
  const uptime = Number((files.read("/proc/uptime") ?? "").split(" ")[0])
  const ageMs = Number.isFinite(uptime) ? Math.max(0, uptime * 1000 - own.started * 10) : undefined
  const exe = checked ? files.link(`/proc/${panePid}/exe`) : undefined
  return {
    comm: own.comm,
    inForeground,
    reading,
    foreground: leader?.comm ?? `process group ${own.tpgid}`,
    foregroundGroup: own.tpgid,
    ...(ageMs === undefined ? {} : { ageMs }),
    ...(own.image === undefined ? {} : { image: own.image }),
    ...(exe === undefined ? {} : { program: programName(exe) })
  }
}

const liveShell = shellFrom(liveProcFiles)
const shell = (panePid: number, tty?: string): Effect.Effect<ShellProcess | undefined> =>
  Effect.sync(() => liveShell(panePid, tty))

const liveFront = frontFrom(liveProcReads, process.arch)
const front = (panePid: number, group: number, tty: string) => Effect.sync(() => liveFront(panePid, group, tty))

const environment = (pid: number, name: string): Effect.Effect<string | undefined> =>
  Effect.sync(() => {
    const entry = (read(`/proc/${pid}/environ`) ?? "").split("\u0000").find((item) => item.startsWith(`${name}=`))
    return entry?.slice(name.length + 1)
  })

/** How a zombie `pid` named `comm` ended, from `files` (see PaneProcess.exitOf). */
export const exitFrom = (pid: number, comm: string, files: ProcFiles = liveProcFiles) => {
  const text = files.read(`/proc/${pid}/stat`)
  if (text === undefined) return undefined
  const close = text.lastIndexOf(")")
  const fields = text.slice(close + 2).split(" ")
  // Field 3 is the state; field 52 the wait status (counted from field 3 at index 0).
  const waited = Number(fields[49])
  if (fields[0] !== "Z" || text.slice(text.indexOf("(") + 1, close) !== comm || !Number.isInteger(waited)) {
    return undefined
  }
  return decodeWaitStatus(waited)
}

const exitOf = (pid: number, comm: string) => Effect.sync(() => exitFrom(pid, comm))

/** A wait status as waitpid(2) gives it: an exit status, or the signal that ended the process. */
export const decodeWaitStatus = (
  waited: number
): { readonly status: number | null; readonly signal: number | null } => {
  const signal = waited & 0x7f
  return signal === 0 ? { status: (waited >> 8) & 0xff, signal: null } : { status: null, signal }
}

/** The live reader. @category layers */
export const layer: Layer.Layer<PaneProcess> = Layer.succeed(
  PaneProcess,
  PaneProcess.of({ shell, front, terminalMode, environment, exitOf })
)
