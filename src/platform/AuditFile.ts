/**
 * Opening an audit file without trusting what is at its path: a symbolic link is not followed (the
 * records would land in the link's target), anything but a regular file is refused (a FIFO would
 * hang the open, a device would swallow or refuse the records), and the file must be this user's
 * with mode 0600. The fallback folder for records that cannot go to stderr is created owner-only.
 * Every system call here runs on libuv's threadpool, so a stalled file system (a frozen or hung
 * mount) stalls only the promise, never the thread that answers requests.
 */
import { type BigIntStats, close, constants, fchmod, fstat, open } from "node:fs"
import { chmod, lstat, mkdir } from "node:fs/promises"
import { isAbsolute, join } from "node:path"

/** Why an audit file cannot be used. @category errors */
export class AuditFileRefused extends Error {}

/** An open audit file: its descriptor, and the device and inode it had when opened. @category models */
export interface OpenedAuditFile {
  readonly fd: number
  readonly dev: bigint
  readonly ino: bigint
}

const kindOf = (stats: BigIntStats): string =>
  stats.isSymbolicLink()
    ? "a symbolic link (name the file itself)"
    : stats.isDirectory()
    ? "a directory"
    : stats.isFIFO()
    ? "a FIFO"
    : stats.isSocket()
    ? "a socket"
    : stats.isCharacterDevice() || stats.isBlockDevice()
    ? "a device"
    : "not a regular file"

const lstatOrUndefined = (path: string): Promise<BigIntStats | undefined> =>
  lstat(path, { bigint: true }).catch(() => undefined)

const fstatOf = (fd: number): Promise<BigIntStats> =>
  new Promise((resolve, reject) =>
    fstat(fd, { bigint: true }, (error, stats) => error ? reject(error) : resolve(stats))
  )

const fchmodOf = (fd: number, mode: number): Promise<void> =>
  new Promise((resolve, reject) => fchmod(fd, mode, (error) => error ? reject(error) : resolve()))

/** Closes a descriptor, ignoring a failure (nothing more can be done about it). */
export const closeAuditFile = (fd: number): Promise<void> => new Promise((resolve) => close(fd, () => resolve()))

/** Refuses what fstat says is not a regular file of this user; sets mode 0600 on one that is. */
const checkOpened = async (fd: number, uid: number): Promise<OpenedAuditFile> => {
  const stats = await fstatOf(fd)
  if (!stats.isFile()) {
    throw new AuditFileRefused(`it is ${kindOf(stats)}; give a regular file or a path that does not exist yet`)
  }
  if (stats.uid !== BigInt(uid)) {
    throw new AuditFileRefused(`it belongs to uid ${stats.uid}, not to this user (uid ${uid}); give a file of your own`)
  }
  // A second name for the file could be anywhere, for example a system file linked into a shared folder.
  if (stats.nlink > 1n) throw new AuditFileRefused(`it has ${stats.nlink} hard links; give a file with one name`)
  if ((stats.mode & 0o777n) !== 0o600n) await fchmodOf(fd, 0o600)
  return { fd, dev: stats.dev, ino: stats.ino }
}

/**
 * Opens an audit file for appending (created 0600 when absent); rejects with `AuditFileRefused`
 * saying why when the path is not a regular file of this user, or cannot be opened.
 */
export const openAuditFile = async (path: string, uid: number): Promise<OpenedAuditFile> => {
  const existing = await lstatOrUndefined(path)
  // Checked before opening, so a device or FIFO is never opened at all.
  if (existing !== undefined && !existing.isFile()) {
    throw new AuditFileRefused(`it is ${kindOf(existing)}; give a regular file or a path that does not exist yet`)
  }
  const fd = await new Promise<number>((resolve, reject) =>
    open(
      path,
      // O_NONBLOCK: should a FIFO appear at the path after the check, the open fails instead of waiting for a reader.
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      0o600,
      (error, fd) => {
        if (error === null) return resolve(fd)
        reject(
          new AuditFileRefused(
            error.code === "ELOOP"
              ? "it is a symbolic link (name the file itself)"
              : error.code === "ENXIO"
              ? "it is a FIFO"
              : error.message
          )
        )
      }
    )
  )
  try {
    return await checkOpened(fd, uid)
  } catch (error) {
    await closeAuditFile(fd)
    throw error instanceof AuditFileRefused ? error : new AuditFileRefused((error as Error).message)
  }
}

/** Whether an open audit file is still the one at its path. @category models */
export type AuditFileAtPath = "same" | "missing" | "replaced"

/**
 * Compares the path's device and inode (lstat: a link put at the path is not the file) with the
 * open file's. A deleted or renamed file is `missing`; another file there is `replaced`.
 */
export const auditFileAtPath = async (path: string, file: OpenedAuditFile): Promise<AuditFileAtPath> => {
  const stats = await lstatOrUndefined(path)
  if (stats === undefined) return "missing"
  return stats.dev === file.dev && stats.ino === file.ino ? "same" : "replaced"
}

/**
 * The per-user folder for audit records that cannot go to stderr: `$XDG_STATE_HOME/libtmux-mcp`
 * (when absolute, as the XDG specification asks), else `$HOME/.local/state/libtmux-mcp`.
 */
export const fallbackAuditFolder = (env: Readonly<Record<string, string | undefined>>): string | undefined => {
  const state = env.XDG_STATE_HOME
  if (state !== undefined && isAbsolute(state)) return join(state, "libtmux-mcp")
  const home = env.HOME
  return home !== undefined && isAbsolute(home) ? join(home, ".local", "state", "libtmux-mcp") : undefined
}

/**
 * Creates the fallback folder (mode 0700, enforced) and opens `audit-<pid>.jsonl` in it; rejects
 * with `AuditFileRefused` when it cannot.
 */
export const openFallbackAuditFile = async (path: string, uid: number): Promise<OpenedAuditFile> => {
  const folder = join(path, "..")
  try {
    await mkdir(folder, { recursive: true, mode: 0o700 })
  } catch (error) {
    throw new AuditFileRefused(`cannot create ${folder}: ${(error as Error).message}`)
  }
  const stats = await lstatOrUndefined(folder)
  if (stats === undefined) throw new AuditFileRefused(`${folder} vanished as it was created`)
  if (!stats.isDirectory()) throw new AuditFileRefused(`${folder} is ${kindOf(stats)}, not a folder`)
  if (stats.uid !== BigInt(uid)) {
    throw new AuditFileRefused(`${folder} belongs to uid ${stats.uid}, not to this user (uid ${uid})`)
  }
  if ((stats.mode & 0o777n) !== 0o700n) {
    await chmod(folder, 0o700).catch((error: Error) => {
      throw new AuditFileRefused(`cannot make ${folder} owner-only: ${error.message}`)
    })
  }
  return openAuditFile(path, uid)
}
