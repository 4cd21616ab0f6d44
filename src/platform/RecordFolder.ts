/**
 * The recording folder and its files, trusted no more than the audit file is: the folder must be a
 * real folder (not a symbolic link) of this user that no one else can enter; one that does not
 * exist is created owner-only. Each recording is a new file there (never one found at the path),
 * mode 0600. A pane's output reaches this process through a FIFO made beside the recordings and
 * removed as soon as tmux's pipe has opened it. Every system call runs on libuv's threadpool.
 */
import { execFile } from "node:child_process"
import { type BigIntStats, constants, open, write } from "node:fs"
import { access, lstat, mkdir, unlink } from "node:fs/promises"
import { closeAuditFile as closeFd } from "./AuditFile.ts"

/** Why the recording folder or a file in it cannot be used. @category errors */
export class RecordFolderRefused extends Error {}

const kindOf = (stats: BigIntStats): string =>
  stats.isSymbolicLink() ? "a symbolic link (name the folder itself)" : stats.isFile() ? "a file" : "not a folder"

/**
 * Checks the folder, creating it (mode 0700) when absent: a folder of this user, with no access for
 * group or others, that this process can write. Rejects with `RecordFolderRefused` saying why.
 */
export const checkRecordFolder = async (path: string, uid: number): Promise<void> => {
  let stats = await lstat(path, { bigint: true }).catch(() => undefined)
  if (stats === undefined) {
    try {
      await mkdir(path, { recursive: true, mode: 0o700 })
    } catch (error) {
      throw new RecordFolderRefused(`it cannot be created: ${(error as Error).message}`)
    }
    stats = await lstat(path, { bigint: true })
  }
  if (!stats.isDirectory()) throw new RecordFolderRefused(`it is ${kindOf(stats)}; give a folder of yours`)
  if (stats.uid !== BigInt(uid)) {
    throw new RecordFolderRefused(`it belongs to uid ${stats.uid}, not to this user (uid ${uid})`)
  }
  const mode = Number(stats.mode & 0o777n)
  if ((mode & 0o077) !== 0) {
    throw new RecordFolderRefused(
      `others can reach it (mode ${mode.toString(8).padStart(4, "0")}); make it owner-only (chmod 700)`
    )
  }
  await access(path, constants.W_OK | constants.X_OK).catch((error: Error) => {
    throw new RecordFolderRefused(`it cannot be written: ${error.message}`)
  })
}

/** Creates a new file for a recording, mode 0600; never opens one already there, never follows a link. */
export const createCastFile = (path: string): Promise<number> =>
  new Promise((resolve, reject) =>
    open(
      path,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW | constants.O_APPEND,
      0o600,
      (error, fd) => error === null ? resolve(fd) : reject(new RecordFolderRefused(error.message))
    )
  )

/** Writes all of `data`; rejects with the system's reason. */
export const writeAll = (fd: number, data: Buffer): Promise<void> =>
  new Promise((resolve, reject) => {
    const step = (offset: number) =>
      write(fd, data, offset, data.length - offset, null, (error, written) => {
        if (error !== null) return reject(error)
        if (offset + written < data.length) return step(offset + written)
        resolve()
      })
    step(0)
  })

/** Closes a descriptor, a failure ignored: the audit file's own closing. */
export { closeFd }

export const removeFile = (path: string): Promise<void> => unlink(path).catch(() => undefined)

/** Makes a FIFO of mode 0600 (Node has no call for it: `mkfifo` does it). */
export const makeFifo = (path: string): Promise<void> =>
  new Promise((resolve, reject) =>
    execFile(
      "mkfifo",
      ["-m", "600", "--", path],
      (error, _stdout, stderr) =>
        error === null ? resolve() : reject(new RecordFolderRefused(`mkfifo failed: ${stderr.trim() || error.message}`))
    )
  )

/**
 * Opens both ends of a FIFO without blocking: the reading end, and a writing end this process holds
 * until tmux's pipe has opened its own, so that the reader does not see an end of file before then.
 */
export const openFifo = async (path: string): Promise<{ readonly read: number; readonly hold: number }> => {
  const openWith = (flags: number) =>
    new Promise<number>((resolve, reject) =>
      open(path, flags, (error, fd) => error === null ? resolve(fd) : reject(new RecordFolderRefused(error.message)))
    )
  const read = await openWith(constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW)
  try {
    return { read, hold: await openWith(constants.O_WRONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW) }
  } catch (error) {
    await closeFd(read)
    throw error
  }
}
