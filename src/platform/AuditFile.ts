/**
 * Opening an audit file without trusting what is at its path: a symbolic link is not followed (the
 * records would land in the link's target), anything but a regular file is refused (a FIFO would
 * hang the open, a device would swallow or refuse the records), and the file must be this user's
 * with mode 0600. The fallback folder for records that cannot go to stderr is created owner-only.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  type Stats
} from "node:fs"
import { isAbsolute, join } from "node:path"

/** Why an audit file cannot be used. @category errors */
export class AuditFileRefused extends Error {}

const kindOf = (stats: Stats): string =>
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

const lstatOrUndefined = (path: string): Stats | undefined => {
  try {
    return lstatSync(path)
  } catch {
    return undefined
  }
}

/** Refuses what fstat says is not a regular file of this user; sets mode 0600 on one that is. */
const checkOpened = (fd: number, uid: number): void => {
  const stats = fstatSync(fd)
  if (!stats.isFile()) {
    throw new AuditFileRefused(`it is ${kindOf(stats)}; give a regular file or a path that does not exist yet`)
  }
  if (stats.uid !== uid) {
    throw new AuditFileRefused(`it belongs to uid ${stats.uid}, not to this user (uid ${uid}); give a file of your own`)
  }
  // A second name for the file could be anywhere, for example a system file linked into a shared folder.
  if (stats.nlink > 1) throw new AuditFileRefused(`it has ${stats.nlink} hard links; give a file with one name`)
  if ((stats.mode & 0o777) !== 0o600) fchmodSync(fd, 0o600)
}

/**
 * Opens an audit file for appending (created 0600 when absent) and returns its descriptor; throws
 * `AuditFileRefused` saying why when the path is not a regular file of this user, or cannot be opened.
 */
export const openAuditFile = (path: string, uid: number): number => {
  const existing = lstatOrUndefined(path)
  // Checked before opening, so a device or FIFO is never opened at all.
  if (existing !== undefined && !existing.isFile()) {
    throw new AuditFileRefused(`it is ${kindOf(existing)}; give a regular file or a path that does not exist yet`)
  }
  let fd: number
  try {
    // O_NONBLOCK: should a FIFO appear at the path after the check, the open fails instead of waiting for a reader.
    fd = openSync(
      path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK,
      0o600
    )
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new AuditFileRefused(
      code === "ELOOP"
        ? "it is a symbolic link (name the file itself)"
        : code === "ENXIO"
        ? "it is a FIFO"
        : (error as Error).message
    )
  }
  try {
    checkOpened(fd, uid)
    return fd
  } catch (error) {
    closeSync(fd)
    throw error instanceof AuditFileRefused ? error : new AuditFileRefused((error as Error).message)
  }
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
 * Creates the fallback folder (mode 0700, enforced) and opens `audit-<pid>.jsonl` in it;
 * throws `AuditFileRefused` when it cannot.
 */
export const openFallbackAuditFile = (path: string, uid: number): number => {
  const folder = join(path, "..")
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 })
  } catch (error) {
    throw new AuditFileRefused(`cannot create ${folder}: ${(error as Error).message}`)
  }
  const stats = lstatSync(folder)
  if (!stats.isDirectory()) throw new AuditFileRefused(`${folder} is ${kindOf(stats)}, not a folder`)
  if (stats.uid !== uid) {
    throw new AuditFileRefused(`${folder} belongs to uid ${stats.uid}, not to this user (uid ${uid})`)
  }
  if ((stats.mode & 0o777) !== 0o700) chmodSync(folder, 0o700)
  return openAuditFile(path, uid)
}
