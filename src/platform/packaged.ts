/**
 * What differs when the server runs as the single executable (`npm run build:binary`: a Node
 * single-executable application). That process has no package folder: its one script's `require`
 * loads Node's built-ins only, and what the package ships as files (share/, and re2js for the regex
 * worker) comes from the assets scripts/build-binary.ts embedded in the executable.
 */
import { createHash, randomBytes } from "node:crypto"
import { closeSync, constants, fstatSync, openSync, readSync, renameSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { getAsset, isSea } from "node:sea"

/** Whether this process is the single executable. */
export const packaged: boolean = isSea()

/** The assets the build embeds. @category models */
export type AssetName = "re2js.cjs" | "tmux-minimal.conf"

/** An embedded asset's text (only inside the single executable). */
export const assetText = (name: AssetName): string => getAsset(name, "utf8")

/**
 * `path` opened for reading (never through a link, never waiting on a FIFO) when it is a regular
 * file of `uid`'s, closed to group and others, holding exactly `text`: checked on the descriptor, so
 * what was checked is what the descriptor reads, whatever is renamed onto `path` later. Otherwise
 * closed, and undefined.
 */
const openHolding = (path: string, uid: number, text: string): number | undefined => {
  let fd: number
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch {
    return undefined
  }
  try {
    const stats = fstatSync(fd)
    const expected = Buffer.from(text, "utf8")
    if (stats.isFile() && stats.uid === uid && (stats.mode & 0o077) === 0 && stats.size === expected.length) {
      const found = Buffer.alloc(expected.length + 1)
      let length = 0
      for (let read = -1; read !== 0 && length < found.length;) {
        read = readSync(fd, found, length, found.length - length, length)
        length += read
      }
      if (found.subarray(0, length).equals(expected)) return fd
    }
  } catch {
    // Not readable: not the file.
  }
  closeSync(fd)
  return undefined
}

/**
 * An asset as a file, for a program that takes a path (tmux's `-f`), in `folder`, which the caller
 * checked to be this user's alone (`uid`). Its name holds a hash of its text, and a file found
 * under that name is used only when it is this user's regular file, mode 0600, with exactly that
 * text; otherwise it is written, 0600, under a new name and renamed into place. The result holds
 * it open (`fd`, checked through that descriptor): a program given `/dev/fd/<n>` reads that file,
 * not whatever has the name by then. A string says why there is none. Small modules only (this one
 * loads before the compile cache is on).
 */
export const assetFile = (
  name: AssetName,
  folder: string,
  uid: number
): { readonly path: string; readonly fd: number } | string => {
  const text = assetText(name)
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 12)
  const dot = name.lastIndexOf(".")
  const path = join(folder, `${name.slice(0, dot)}-${hash}${name.slice(dot)}`)
  const found = openHolding(path, uid, text)
  if (found !== undefined) return { path, fd: found }
  const fresh = `${path}.new-${randomBytes(4).toString("hex")}`
  try {
    // "wx": a new file, never through a link someone left at that name.
    writeFileSync(fresh, text, { mode: 0o600, flag: "wx" })
    renameSync(fresh, path)
  } catch (error) {
    try {
      unlinkSync(fresh)
    } catch {
      // Not written.
    }
    return `cannot write ${path}: ${(error as Error).message}`
  }
  const written = openHolding(path, uid, text)
  return written === undefined ? `${path} changed while it was written` : { path, fd: written }
}
