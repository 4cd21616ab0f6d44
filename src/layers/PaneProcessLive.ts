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
import { programName, unseenReason } from "../domain/paneView.ts"
import { frontFrom, terminalMode } from "../platform/keyboardProc.ts"
import {
  clockTicks,
  layer as procLayer,
  liveProcFiles,
  Proc,
  type ProcFiles as AllProcFiles,
  statOf,
  ticksToMs,
  uptimeMsOf
} from "../platform/Proc.ts"
import { isSystemShell } from "../platform/shellFiles.ts"
import { PaneProcess, type ShellProcess } from "../services/PaneProcess.ts"

export { liveProcFiles } from "../platform/Proc.ts"

/** What `shellFrom` reads from the system (platform/Proc.ts); tests hand it a made-up /proc. @category models */
export type ProcFiles = Pick<AllProcFiles, "read" | "link" | "device" | "identity">

const stat = (pid: number, files: Pick<AllProcFiles, "read">) => statOf(files, pid)

const optional = <K extends string, A>(key: K, value: A | undefined) =>
  (value === undefined ? {} : { [key]: value }) as { readonly [P in K]?: A }

/** Where a process idle at a prompt sleeps (measured: bash, fish poll; zsh, dash read the tty). */
const promptWaits = ["poll_schedule_timeout", "do_select", "wait_woken", "n_tty_read"]

const waitsIn = (pid: number, waits: ReadonlyArray<string>, files: Pick<AllProcFiles, "read">): boolean | undefined => {
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
export const shellFrom = (files: ProcFiles, ticks: () => number = clockTicks) =>
(
  panePid: number,
  tty?: string
): ShellProcess | undefined => {
  const own = stat(panePid, files)
  const checked = tty !== undefined && tty !== "" &&
    (own !== undefined || files.read("/proc/self/stat") !== undefined)
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
  const uptimeMs = uptimeMsOf(files)
  const ageMs = uptimeMs === undefined ? undefined : Math.max(0, uptimeMs - ticksToMs(own.started, ticks()))
  const exe = checked ? files.link(`/proc/${panePid}/exe`) : undefined
  return {
    comm: own.comm,
    inForeground,
    reading,
    foreground: leader?.comm ?? `process group ${own.tpgid}`,
    foregroundGroup: own.tpgid,
    ...(ageMs === undefined ? {} : { ageMs }),
    ...(own.image === undefined ? {} : { image: own.image }),
    ...(exe === undefined ? {} : { program: programName(exe) }),
    ...(exe === undefined ? {} : optional("systemShell", isSystemShell(files, panePid)))
  }
}

/** How a zombie `pid` named `comm` ended, from `files` (see PaneProcess.exitOf). */
export const exitFrom = (pid: number, comm: string, files: Pick<AllProcFiles, "read"> = liveProcFiles) => {
  const own = statOf(files, pid)
  return own === undefined || own.state !== "Z" || own.comm !== comm || own.waited === undefined
    ? undefined
    : decodeWaitStatus(own.waited)
}

/** A wait status as waitpid(2) gives it: an exit status, or the signal that ended the process. */
export const decodeWaitStatus = (
  waited: number
): { readonly status: number | null; readonly signal: number | null } => {
  const signal = waited & 0x7f
  return signal === 0 ? { status: (waited >> 8) & 0xff, signal: null } : { status: null, signal }
}

/** The live reader, over /proc (platform/Proc.ts). @category layers */
export const layer: Layer.Layer<PaneProcess> = Layer.effect(
  PaneProcess,
  Effect.gen(function*() {
    const { files, ticksPerSecond } = yield* Proc
    const shell = shellFrom(files, ticksPerSecond)
    const front = frontFrom(files, process.arch)
    // shell and front are read by the readiness and watch polls (every 10 to 100 ms): no spans there.
    return PaneProcess.of({
      shell: (panePid, tty) => Effect.sync(() => shell(panePid, tty)),
      front: (panePid, group, tty) => Effect.sync(() => front(panePid, group, tty)),
      terminalMode: Effect.fn("PaneProcess.terminalMode")(function*(tty: string) {
        return yield* terminalMode(tty)
      }),
      environment: Effect.fn("PaneProcess.environment")(function*(pid: number, name: string) {
        const environ = yield* Effect.sync(() => files.read(`/proc/${pid}/environ`) ?? "")
        return environ.split("\u0000").find((item) => item.startsWith(`${name}=`))?.slice(name.length + 1)
      }),
      exitOf: Effect.fn("PaneProcess.exitOf")(function*(pid: number, comm: string) {
        return yield* Effect.sync(() => exitFrom(pid, comm, files))
      })
    })
  })
).pipe(Layer.provide(procLayer))
