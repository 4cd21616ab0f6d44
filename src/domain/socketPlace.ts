/**
 * Whether a tmux client of ours may connect to a socket: decided from what a reader finds on the
 * way to it, so the decision is pure and the live layer supplies lstat and readlink.
 *
 * Security: a tmux client obeys its server. `MSG_LOCK` makes it run a shell command and
 * `MSG_WRITE_OPEN` makes it open a file for writing, as our user; and a client that finds no server
 * opens `<socket>.lock` with O_CREAT (following a link) to start one. So whoever can bind the socket's
 * name, or put a link at the lock's name, acts as us. tmux guards its own `tmux-<uid>` folder this
 * way; a socket we were handed (`path:`, or `$TMUX` for `inherit`) gets the same guard here.
 */

/** What lstat says of one path. @category models */
export interface Entry {
  readonly kind: "folder" | "socket" | "file" | "symlink" | "other"
  readonly uid: number
  /** Permission bits with the sticky bit (`st_mode & 0o7777`). */
  readonly mode: number
}

/** Reads the file system without following a final link. @category models */
export interface PlaceReader {
  readonly lstat: (path: string) => Entry | "missing" | { readonly problem: string }
  readonly readlink: (path: string) => string | { readonly problem: string }
}

/** A socket whose folders passed, with what must be checked again before each tmux invocation. @category models */
export interface SocketPlace {
  /** The socket in its real folder. */
  readonly socket: string
  /** `<socket>.lock`, which a tmux client creates beside the socket to start a server. */
  readonly lock: string
  /** The real folder holding the socket. */
  readonly folder: string
  /** The folder's mode when group or others can write it (it is then sticky), else undefined. */
  readonly sharedMode: number | undefined
  /** Our uid: the socket and its lock must be ours. */
  readonly uid: number
}

/** Why a place is refused: the path at fault, and what was found there and what to do instead. @category models */
export interface PlaceRefusal {
  readonly path: string
  readonly detail: string
}

const sticky = 0o1000
const groupOrOtherWrite = 0o022
const maxLinks = 40

/** The usual way out, said at the end of each refusal. */
export const privateFolderFix = "choose a folder only you can write (yours, mode 0700), such as " +
  "$XDG_RUNTIME_DIR or one in your home, for LIBTMUX_SOCKET=path:"

/**
 * Where a walk of folders leads, in the words its refusals use: to a handed tmux socket, or to this
 * user's lock folder (Lease.ts), which also holds the single executable's tmux configuration.
 * @category models
 */
export interface Destination {
  /** What the walked folder is called: `socket folder`. */
  readonly folder: string
  /** What the walk leads to, as in "folder X on the way to <target>". */
  readonly target: string
  /** What the owner of a folder on the way could do: `put their own socket in your socket's place`. */
  readonly ownerRisk: string
  /** What a folder others can write without the sticky bit allows. */
  readonly sharedRisk: string
  /** The way out, said at the end of each refusal. */
  readonly fix: string
  /** What to do about a folder that does not exist. */
  readonly missing: string
}

/** The walk to a socket we were handed (`path:`, or `$TMUX` for `inherit`). */
export const socketDestination: Destination = {
  folder: "socket folder",
  target: "the tmux socket",
  ownerRisk: "put their own socket in your socket's place",
  sharedRisk: "another user could replace the socket or a folder after it with their own",
  fix: privateFolderFix,
  missing: `tmux creates the socket, not its folder: create it (mode 0700) or ${privateFolderFix}`
}

const octal = (mode: number) => (mode & 0o7777).toString(8).padStart(4, "0")

const describeKind = (kind: Entry["kind"]): string =>
  kind === "file"
    ? "a regular file"
    : kind === "folder"
    ? "a folder"
    : kind === "symlink"
    ? "a symbolic link"
    : kind === "socket"
    ? "a socket"
    : "a FIFO or device"

const refuse = (path: string, detail: string): PlaceRefusal => ({ path, detail })

/**
 * Why a folder on the way may not be trusted, or undefined. Only its owner (or root) can change its
 * mode or owner, and with the sticky bit only they can rename or remove its entries: so a folder
 * that passes here stays as it is, which is why this walk is made once, at startup.
 */
const folderProblem = (path: string, entry: Entry, uid: number, to: Destination): PlaceRefusal | undefined => {
  if (entry.uid !== uid && entry.uid !== 0) {
    return refuse(
      path,
      `folder ${path} on the way to ${to.target} belongs to uid ${entry.uid}, not to you (uid ${uid}) or ` +
        `root, so its owner could ${to.ownerRisk}; ${to.fix}`
    )
  }
  if ((entry.mode & groupOrOtherWrite) !== 0 && (entry.mode & sticky) === 0) {
    return refuse(
      path,
      `folder ${path} on the way to ${to.target} has mode ${octal(entry.mode)}: group or others can ` +
        `write it without the sticky bit, so ${to.sharedRisk}; ${to.fix}`
    )
  }
  return undefined
}

const splitPath = (path: string) => path.split("/").filter((name) => name !== "" && name !== ".")

const joinPath = (folder: string, name: string) => folder === "/" ? `/${name}` : `${folder}/${name}`

const parentOf = (path: string) => path.slice(0, Math.max(1, path.lastIndexOf("/")))

/**
 * Resolves `folder` the way the kernel does, one name at a time, checking every folder it passes
 * through, including those holding a link on the way (whoever can change a link can send the path
 * elsewhere). Resolves to the real folder and its entry; a refusal speaks of where the walk leads (`to`).
 */
export const walkFolders = (
  folder: string,
  uid: number,
  reader: PlaceReader,
  to: Destination = socketDestination
): { readonly real: string; readonly entry: Entry } | PlaceRefusal => {
  const root = reader.lstat("/")
  if (root === "missing" || "problem" in root) {
    return refuse("/", `the root folder cannot be examined; ${to.fix}`)
  }
  let current = "/"
  let entry: Entry = root
  const problem = folderProblem("/", root, uid, to)
  if (problem !== undefined) return problem
  const queue = splitPath(folder)
  let links = 0
  while (queue.length > 0) {
    const name = queue.shift()!
    // `current` is always a real folder, so its parent is where `..` leads.
    if (name === "..") {
      current = parentOf(current)
      const parent = reader.lstat(current)
      if (parent === "missing" || "problem" in parent) {
        return refuse(current, `folder ${current} cannot be examined; ${to.fix}`)
      }
      entry = parent
      continue
    }
    const next = joinPath(current, name)
    const found = reader.lstat(next)
    if (found === "missing") {
      return refuse(
        next,
        `${to.folder} ${next} does not exist; ${to.missing}`
      )
    }
    if ("problem" in found) {
      return refuse(next, `${to.folder} ${next} cannot be examined (${found.problem}); ${to.fix}`)
    }
    if (found.kind === "symlink") {
      if (++links > maxLinks) {
        return refuse(next, `${to.folder} ${folder} passes through too many symbolic links; ${to.fix}`)
      }
      const target = reader.readlink(next)
      if (typeof target !== "string") {
        return refuse(next, `link ${next} cannot be read (${target.problem}); ${to.fix}`)
      }
      if (target.startsWith("/")) {
        current = "/"
        entry = root
      }
      queue.unshift(...splitPath(target))
      continue
    }
    if (found.kind !== "folder") {
      return refuse(
        next,
        `${to.folder} ${folder} cannot be used: ${next} is not a folder (it is ${describeKind(found.kind)}); ` +
          to.fix
      )
    }
    const unsafe = folderProblem(next, found, uid, to)
    if (unsafe !== undefined) return unsafe
    current = next
    entry = found
  }
  return { real: current, entry }
}

/** The place of the socket at `socketPath` once every folder on its way passed, or why not. */
export const placeOf = (socketPath: string, uid: number, reader: PlaceReader): SocketPlace | PlaceRefusal => {
  const cut = socketPath.lastIndexOf("/")
  const name = socketPath.slice(cut + 1)
  if (name === "" || name === "." || name === "..") {
    return refuse(
      socketPath,
      `socket path ${socketPath} names a folder, not a socket; choose another LIBTMUX_SOCKET=path:`
    )
  }
  const walked = walkFolders(socketPath.slice(0, Math.max(cut, 1)), uid, reader)
  if ("detail" in walked) return walked
  const socket = joinPath(walked.real, name)
  const shared = (walked.entry.mode & groupOrOtherWrite) !== 0
  return {
    socket,
    lock: `${socket}.lock`,
    folder: walked.real,
    sharedMode: shared ? walked.entry.mode : undefined,
    uid
  }
}

/**
 * Checks the socket and its lock, as they are now; made before every tmux invocation, since
 * after the last session ends a socket can disappear and be bound again by whoever can write the
 * folder. `start` is for a call about to start a server: then the folder must not be shared at all.
 */
export const checkPlace = (
  place: SocketPlace,
  reader: PlaceReader,
  step: "connect" | "start"
): PlaceRefusal | undefined => {
  const socket = reader.lstat(place.socket)
  const shared = place.sharedMode === undefined
    ? undefined
    : `its folder ${place.folder} has mode ${octal(place.sharedMode)}, so others can write it`
  if (socket === "missing") {
    if (shared !== undefined) {
      return refuse(
        place.socket,
        `tmux socket ${place.socket} does not exist and ${shared}: another user could bind that name first ` +
          `and answer as a tmux server (a sticky folder only keeps names that exist); nothing connected to it; ` +
          privateFolderFix
      )
    }
  } else if ("problem" in socket) {
    return refuse(
      place.socket,
      `tmux socket ${place.socket} cannot be examined (${socket.problem}); ${privateFolderFix}`
    )
  } else if (socket.kind !== "socket") {
    return refuse(
      place.socket,
      `socket path ${place.socket} is ${describeKind(socket.kind)}, not a socket; tmux would delete it to ` +
        `start a server there; choose another LIBTMUX_SOCKET=path:`
    )
  } else if (socket.uid !== place.uid) {
    return refuse(
      place.socket,
      `tmux socket ${place.socket} belongs to uid ${socket.uid}, not to you (uid ${place.uid}): a server ` +
        `there could make our tmux client run commands as you, so nothing connected to it; ${privateFolderFix}`
    )
  }
  const lock = reader.lstat(place.lock)
  if (lock !== "missing") {
    const found = "problem" in lock
      ? `cannot be examined: ${lock.problem}`
      : lock.kind !== "file"
      ? `is ${describeKind(lock.kind)}`
      : lock.uid !== place.uid
      ? `belongs to uid ${lock.uid}, not to you (uid ${place.uid})`
      : undefined
    if (found !== undefined) {
      return refuse(
        place.lock,
        `${place.lock} ${found}; a tmux client opens it with O_CREAT to start a server (creating what a link ` +
          `points to), so nothing ran; remove it if you put it there, or ${privateFolderFix}`
      )
    }
  }
  if (step === "start" && shared !== undefined) {
    return refuse(
      place.socket,
      `no tmux server answers on ${place.socket} and ${shared}: starting one would create ` +
        `${place.lock} there, a name another user could take first; start it yourself (tmux -S ` +
        `${place.socket}) or ${privateFolderFix}`
    )
  }
  return undefined
}

/**
 * The check for a socket in tmux's own `tmux-<uid>` folder (a `name:`, or `inherit` outside tmux),
 * whose owner and mode tmux checks itself: only that the folder, if there, is a folder, and that
 * nothing but a socket is at the path (tmux deletes whatever is there to start a server).
 */
export const checkTmuxFolderPath = (path: string, reader: PlaceReader): PlaceRefusal | undefined => {
  const folder = parentOf(path)
  const parent = reader.lstat(folder)
  if (parent === "missing") return undefined
  if ("problem" in parent) return refuse(folder, `socket folder ${folder} cannot be examined: ${parent.problem}`)
  if (parent.kind !== "folder") {
    return refuse(
      folder,
      `socket folder ${folder} is not a folder (it is ${describeKind(parent.kind)}); move it away or choose ` +
        `another LIBTMUX_SOCKET`
    )
  }
  const socket = reader.lstat(path)
  if (socket === "missing" || (!("problem" in socket) && socket.kind === "socket")) return undefined
  return refuse(
    path,
    "problem" in socket
      ? `socket path ${path} cannot be examined: ${socket.problem}`
      : `socket path ${path} is ${describeKind(socket.kind)}, not a socket; tmux would delete it to start a ` +
        `server there: move it away or choose another LIBTMUX_SOCKET`
  )
}
