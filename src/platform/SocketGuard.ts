/**
 * The live side of the socket-place check (src/domain/socketPlace.ts): a reader over lstat and
 * readlink, and the guard every tmux invocation on a handed socket passes just before its client
 * is spawned. It never connects to anything itself.
 */
import * as Effect from "effect/Effect"
import { lstatSync, readlinkSync, type Stats } from "node:fs"
import { checkPlace, type Entry, type PlaceReader, type SocketPlace } from "../domain/socketPlace.ts"
import { SocketUnsafe } from "../services/errors.ts"

const kindOf = (stats: Stats): Entry["kind"] =>
  stats.isDirectory()
    ? "folder"
    : stats.isSocket()
    ? "socket"
    : stats.isFile()
    ? "file"
    : stats.isSymbolicLink()
    ? "symlink"
    : "other"

/** The file system as the place check reads it. @category constructors */
export const liveReader: PlaceReader = {
  lstat: (path) => {
    try {
      // No exception for a missing path: this runs before every tmux invocation.
      const stats = lstatSync(path, { throwIfNoEntry: false })
      return stats === undefined ? "missing" : { kind: kindOf(stats), uid: stats.uid, mode: stats.mode & 0o7777 }
    } catch (error) {
      return { problem: (error as Error).message }
    }
  },
  readlink: (path) => {
    try {
      return readlinkSync(path)
    } catch (error) {
      return { problem: (error as Error).message }
    }
  }
}

/**
 * Fails with `SocketUnsafe` when the socket or its lock is now within another user's reach; nothing
 * to check for a socket in tmux's own folder (no place).
 */
export const guardPlace = (
  place: SocketPlace | undefined,
  step: "connect" | "start"
): Effect.Effect<void, SocketUnsafe> =>
  place === undefined ? Effect.void : Effect.suspend(() => {
    const refusal = checkPlace(place, liveReader, step)
    return refusal === undefined ? Effect.void : Effect.fail(new SocketUnsafe(refusal))
  })

/**
 * Whether nothing is at the socket's path: no server listens there (a client connects by the
 * path), so a client forked now could only be told so.
 */
export const socketMissing = (path: string): boolean => liveReader.lstat(path) === "missing"
