/**
 * Every read of /proc, behind one service: the files themselves (one reader, which tests replace
 * with a made-up /proc), /proc/<pid>/stat parsed once (domain/procStat.ts), the clock tick rate its
 * times count in (read once from this process's auxiliary vector, as sysconf does), and this
 * instance's identity as its leftovers name it (domain/instance.ts). Elsewhere than Linux every read
 * is `undefined`.
 */
import * as Context from "effect/Context"
import * as Layer from "effect/Layer"
import { closeSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, statSync } from "node:fs"
import { endianness } from "node:os"
import { formatTag, type Instance, type ProcView } from "../domain/instance.ts"
import type { ProcessReader } from "../domain/processTree.ts"
import { clockTicksOfAuxv, parseProcStat, type ProcStat } from "../domain/procStat.ts"

/** What the readers need of the system; tests hand them a made-up /proc. @category models */
export interface ProcFiles {
  /** A file's text, or `undefined`. */
  readonly read: (path: string) => string | undefined
  /** A symbolic link's target, or `undefined`. */
  readonly link: (path: string) => string | undefined
  /** A device file's device number (rdev), or `undefined`. */
  readonly device: (path: string) => number | undefined
  /** A folder's entries (none when it cannot be read). */
  readonly list: (path: string) => ReadonlyArray<string>
  /** `length` bytes of a file from `position`, or `undefined`. */
  readonly readAt: (path: string, position: number, length: number) => Uint8Array | undefined
  /** The file a path names (links followed), as device, inode, size and change time, or `undefined`. */
  readonly identity?: (path: string) => string | undefined
}

const attempt = <A>(f: () => A): A | undefined => {
  try {
    return f()
  } catch {
    return undefined
  }
}

/** The live system. /proc reads never block on a disk: they are synchronous. @category layers */
export const liveProcFiles: ProcFiles = {
  read: (path) => attempt(() => readFileSync(path, "utf8")),
  link: (path) => attempt(() => readlinkSync(path)),
  device: (path) => attempt(() => statSync(path).rdev),
  identity: (path) =>
    attempt(() => {
      const found = statSync(path)
      return `${found.dev}:${found.ino}:${found.size}:${found.ctimeMs}`
    }),
  list: (path) => attempt(() => readdirSync(path)) ?? [],
  readAt: (path, position, length) =>
    attempt(() => {
      const fd = openSync(path, "r")
      try {
        const buffer = new Uint8Array(length)
        return buffer.subarray(0, readSync(fd, buffer, 0, length, position))
      } finally {
        closeSync(fd)
      }
    })
}

/** /proc/<pid>/stat from `files`, parsed, or `undefined`. */
export const statOf = (files: Pick<ProcFiles, "read">, pid: number): ProcStat | undefined => {
  const text = files.read(`/proc/${pid}/stat`)
  return text === undefined ? undefined : parseProcStat(text)
}

/** How long ago the system booted, in milliseconds, from `files`; `undefined` when unreadable. */
export const uptimeMsOf = (files: Pick<ProcFiles, "read">): number | undefined => {
  const seconds = Number((files.read("/proc/uptime") ?? "").split(" ")[0])
  return Number.isFinite(seconds) ? seconds * 1000 : undefined
}

/** A stat start time (`ticks` after boot) in milliseconds after boot. */
export const ticksToMs = (ticks: number, perSecond: number): number => ticks * 1000 / perSecond

let ticksPerSecond: number | undefined

/** Architectures whose Node has 4-byte words; every other Linux build has 8. */
const fourByteWords = new Set(["arm", "ia32", "mips", "mipsel", "ppc", "s390"])

/**
 * The clock tick rate of /proc's times (sysconf(_SC_CLK_TCK)), read once from /proc/self/auxv: a
 * file read, not a `getconf` child on the thread that answers requests. 100 where it cannot be
 * read: USER_HZ is 100 on every Linux architecture today.
 */
export const clockTicks = (): number => {
  if (ticksPerSecond === undefined) {
    const auxv = attempt(() => readFileSync("/proc/self/auxv"))
    const wordBytes = fourByteWords.has(process.arch) ? 4 : 8
    ticksPerSecond = (auxv && clockTicksOfAuxv(auxv, wordBytes, endianness() === "LE")) ?? 100
  }
  return ticksPerSecond
}

/** The pid namespace's inode of `pid`, or "" where it cannot be read. */
const namespaceOf = (files: Pick<ProcFiles, "link">, pid: number | "self"): string =>
  /\[([0-9]+)\]/u.exec(files.link(`/proc/${pid}/ns/pid`) ?? "")?.[1] ?? ""

/** /proc as seen through `files`, for judging a tag. */
export const procViewOf = (files: Pick<ProcFiles, "read" | "link">): ProcView => ({
  namespace: namespaceOf(files, "self"),
  startedOf: (pid) => {
    const started = statOf(files, pid)?.started
    return started !== undefined && Number.isSafeInteger(started) ? started : undefined
  }
})

/** The process tree's live reader (domain/processTree.ts): a device only when it is a terminal's. */
export const processReader: ProcessReader = {
  stat: (pid) => liveProcFiles.read(`/proc/${pid}/stat`),
  device: (path) =>
    attempt(() => {
      const stats = statSync(path)
      return stats.isCharacterDevice() ? stats.rdev : undefined
    })
}

/** What /proc says of this process and others. @category services */
export class Proc extends Context.Service<Proc, {
  /** The files, for the readers that need more than the answers below. */
  readonly files: ProcFiles
  /** /proc/<pid>/stat, parsed, or `undefined`. */
  readonly stat: (pid: number) => ProcStat | undefined
  /** /proc here, for judging another instance's tag. */
  readonly view: ProcView
  /** This process, as its leftovers name it. */
  readonly instance: Instance
  /** This process's tag (`formatTag(instance)`). */
  readonly tag: string
  /** The clock tick rate of stat's times. */
  readonly ticksPerSecond: () => number
}>()("libtmux-mcp/platform/Proc") {}

/** The service over `files`, as the process `pid` sees it. @category constructors */
export const makeProc = (files: ProcFiles, pid: number, ticks: () => number = clockTicks): Proc["Service"] => {
  const view = procViewOf(files)
  const instance: Instance = { pid, started: view.startedOf(pid) ?? 0, namespace: view.namespace }
  return Proc.of({
    files,
    stat: (of) => statOf(files, of),
    view,
    instance,
    tag: formatTag(instance),
    ticksPerSecond: ticks
  })
}

let live: Proc["Service"] | undefined

/** This process's /proc, read on first use. @category constructors */
export const liveProc = (): Proc["Service"] => live ??= makeProc(liveProcFiles, process.pid)

/** The live service. @category layers */
export const layer: Layer.Layer<Proc> = Layer.sync(Proc, liveProc)
