/**
 * Questions about paths on this machine that several parts ask: where a path really leads, and
 * whether two paths name the same file.
 */
import { realpathSync, statSync } from "node:fs"

/** The resolved path, or `undefined` when it cannot be resolved. */
export const realpath = (path: string): string | undefined => {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

/**
 * Whether two paths name the same file: the same device and inode (a hard link has another path),
 * or, when either cannot be read, the same resolved path.
 */
export const sameFile = (a: string, b: string): boolean => {
  try {
    const [first, second] = [statSync(a), statSync(b)]
    return first.dev === second.dev && first.ino === second.ino
  } catch {
    return (realpath(a) ?? a) === (realpath(b) ?? b)
  }
}
