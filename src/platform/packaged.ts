/**
 * What differs when the server runs as the single executable (`npm run build:binary`: a Node
 * single-executable application). That process has no package folder: its one script's `require`
 * loads Node's built-ins only, and what the package ships as files (share/, and re2js for the regex
 * worker) comes from the assets scripts/build-binary.ts embedded in the executable.
 */
import { createHash, randomBytes } from "node:crypto"
import { lstatSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { getAsset, isSea } from "node:sea"

/** Whether this process is the single executable. */
export const packaged: boolean = isSea()

/** The assets the build embeds. @category models */
export type AssetName = "re2js.cjs" | "tmux-minimal.conf"

/** An embedded asset's text (only inside the single executable). */
export const assetText = (name: AssetName): string => getAsset(name, "utf8")

/** Whether `path` is a regular file of `uid`'s, closed to others, holding exactly `text`. */
const holds = (path: string, uid: number, text: string): boolean => {
  try {
    const stats = lstatSync(path)
    return stats.isFile() && stats.uid === uid && (stats.mode & 0o077) === 0 && readFileSync(path, "utf8") === text
  } catch {
    return false
  }
}

/**
 * An asset as a file, for a program that takes a path (tmux's `-f`), in `folder`, which the caller
 * checked to be this user's alone (`uid`). Its name holds a hash of its text, and a file found
 * under that name is used only when it is this user's regular file, mode 0600, with exactly that
 * text; otherwise it is written, 0600, under a new name and renamed into place. A string says why
 * there is none. Small modules only (this one loads before the compile cache is on).
 */
export const assetFile = (name: AssetName, folder: string, uid: number): { readonly path: string } | string => {
  const text = assetText(name)
  const hash = createHash("sha256").update(text).digest("hex").slice(0, 12)
  const dot = name.lastIndexOf(".")
  const path = join(folder, `${name.slice(0, dot)}-${hash}${name.slice(dot)}`)
  if (holds(path, uid, text)) return { path }
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
  return holds(path, uid, text) ? { path } : `${path} changed while it was written`
}
