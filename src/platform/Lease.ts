/**
 * The advisory lease and the creation lock, keyed to the resolved socket path. Both are Unix
 * sockets in a folder only this user can enter (`$XDG_RUNTIME_DIR/libtmux-mcp`, else
 * `<TMUX_TMPDIR or /tmp>/tmux-<uid>/libtmux-mcp-locks`), verified to be owned by this uid with no
 * access for others, in a place no other user can change, so no other user can hold them first.
 * They are never put beside a `path:` socket: nothing of ours is created in that folder (tmux's own
 * `<socket>.lock` is checked in SocketGuard.ts).
 *
 * Holding one means listening on it. A holder killed with SIGKILL leaves its socket file behind,
 * but nothing listens there any more (a connection is refused), so the next instance takes it
 * over: a dead holder never blocks.
 *
 * They are advisory: they coordinate instances of this server. Any process of the same user can
 * still connect to the tmux socket itself.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { createHash, randomBytes } from "node:crypto"
import { linkSync, lstatSync, mkdirSync, renameSync, unlinkSync } from "node:fs"
import { createConnection, createServer, type Server } from "node:net"
import { dirname, join } from "node:path"
import { type Destination, walkFolders } from "../domain/socketPlace.ts"
import type { LeaseState } from "../services/SocketPin.ts"
import { realpath } from "./files.ts"
import { liveReader } from "./SocketGuard.ts"

type Environment = Readonly<Record<string, string | undefined>>

/** Why `path` is not a folder only this user can enter, or undefined when it is one. */
const notOwnerOnly = (path: string, uid: number): string | undefined => {
  try {
    const stats = lstatSync(path)
    if (!stats.isDirectory()) return `${path} is not a folder`
    if (stats.uid !== uid) return `${path} belongs to uid ${stats.uid}, not to this user (${uid})`
    if ((stats.mode & 0o077) !== 0) return `${path} has mode ${(stats.mode & 0o777).toString(8)}; it must be 0700`
    return undefined
  } catch (error) {
    return `cannot examine ${path}: ${(error as Error).message}`
  }
}

/** Creates `path` owner-only unless it exists; the caller verifies it. */
const makeFolder = (path: string): string | undefined => {
  try {
    mkdirSync(path, { mode: 0o700 })
    return undefined
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EEXIST"
      ? undefined
      : `cannot create ${path}: ${(error as Error).message}`
  }
}

/**
 * Where the lock folder is reached from, in a refusal's words: the variable that chose its parent
 * and what to set instead. The folders on the way may be yours or root's; one others can write
 * must be sticky (as /tmp), so only the lock folder's owner can rename or remove it there.
 */
const lockDestination = (
  variable: "XDG_RUNTIME_DIR" | "TMUX_TMPDIR" | undefined,
  uid: number,
  tmuxFolder: string
): Destination => {
  const fix = variable === "XDG_RUNTIME_DIR"
    ? `set XDG_RUNTIME_DIR to a folder of yours (mode 0700) such as /run/user/${uid}, or unset it (the ` +
      `locks then go in ${tmuxFolder}); su without - and sudo -E keep the other user's XDG_RUNTIME_DIR`
    : variable === "TMUX_TMPDIR"
    ? "set TMUX_TMPDIR to a folder of yours (mode 0700), or XDG_RUNTIME_DIR to one"
    : "set XDG_RUNTIME_DIR to a folder of yours (mode 0700)"
  return {
    folder: variable === undefined ? "temporary folder" : `${variable} folder`,
    target: "the lock folder",
    ownerRisk: "swap the lock folder, and the tmux configuration kept in it, for their own",
    sharedRisk: "another user could swap the lock folder, or a folder on the way to it, for their own",
    fix,
    missing: fix
  }
}

/**
 * The folder for this user's locks: `$XDG_RUNTIME_DIR/libtmux-mcp`, else a `libtmux-mcp-locks`
 * folder inside tmux's own `tmux-<uid>` (beside the sockets, the lock files would look like tmux
 * servers to anything that lists that folder). Every folder on the way there must be this user's or
 * root's, and sticky if others can write it (`walkFolders`): else another user could swap the lock
 * folder after it was checked. Each folder made or used is verified owner-only; a string result
 * says why there is none.
 */
export const lockFolder = (env: Environment): { readonly path: string } | string => {
  const uid = process.getuid?.()
  if (uid === undefined) return `no user id on ${process.platform}`
  const runtime = env.XDG_RUNTIME_DIR
  const fromRuntime = runtime !== undefined && runtime.startsWith("/")
  const tmpdir = env.TMUX_TMPDIR !== undefined && env.TMUX_TMPDIR !== "" ? realpath(env.TMUX_TMPDIR) : undefined
  const tmuxFolder = join(tmpdir ?? realpath("/tmp") ?? "/tmp", `tmux-${uid}`)
  const parent = fromRuntime ? runtime : dirname(tmuxFolder)
  const variable = fromRuntime ? "XDG_RUNTIME_DIR" : tmpdir !== undefined ? "TMUX_TMPDIR" : undefined
  const walked = walkFolders(parent, uid, liveReader, lockDestination(variable, uid, tmuxFolder))
  if ("detail" in walked) return walked.detail
  const folders = fromRuntime ? [join(runtime, "libtmux-mcp")] : [tmuxFolder, join(tmuxFolder, "libtmux-mcp-locks")]
  for (const folder of folders) {
    const why = makeFolder(folder) ?? notOwnerOnly(folder, uid)
    if (why !== undefined) return why
  }
  return { path: folders[folders.length - 1]! }
}

/** The lock's file: a short hash of the socket path keeps it under the 107-byte socket path limit. */
const lockPath = (folder: string, purpose: string, socketPath: string) =>
  join(folder, `${purpose}-${createHash("sha256").update(socketPath).digest("hex").slice(0, 12)}`)

/** Listens on `path`; answers connections with `info`. */
const listen = (path: string, info: string) =>
  Effect.callback<Server, NodeJS.ErrnoException>((resume) => {
    const server = createServer((connection) => connection.end(info))
    server.once("error", (error: NodeJS.ErrnoException) => resume(Effect.fail(error)))
    server.listen({ path, exclusive: true }, () => {
      server.unref()
      resume(Effect.succeed(server))
    })
  })

/** What the holder of a lock says about itself (at most 256 bytes), or why nobody answered. */
const ask = (path: string) =>
  Effect.callback<{ readonly answer: string } | { readonly refused: string }>((resume) => {
    let text = ""
    const socket = createConnection({ path })
    socket.setTimeout(500)
    socket.on("data", (chunk) => {
      text += chunk.toString("utf8")
      if (text.length > 256) socket.destroy()
    })
    socket.on("timeout", () => socket.destroy())
    socket.on("error", (error: NodeJS.ErrnoException) => resume(Effect.succeed({ refused: error.code ?? "error" })))
    socket.on("close", () => resume(Effect.succeed({ answer: text })))
  })

const semver = /^\d{1,9}\.\d{1,9}\.\d{1,9}(?:-[0-9A-Za-z.-]{1,40})?(?:\+[0-9A-Za-z.-]{1,40})?$/u

/**
 * The holder's answer in words, `pid 123 (libtmux-mcp 0.1.0)`, only when it is exactly a holder
 * record: anything else a process answers is never repeated, since it would reach the model.
 */
export const describeHolder = (answer: string): string => {
  try {
    const record: unknown = JSON.parse(answer)
    if (typeof record === "object" && record !== null && Object.keys(record).sort().join(",") === "pid,version") {
      const { pid, version } = record as { pid: unknown; version: unknown }
      if (Number.isSafeInteger(pid) && (pid as number) > 0 && typeof version === "string" && semver.test(version)) {
        return `pid ${pid} (libtmux-mcp ${version})`
      }
    }
  } catch {
    // Not JSON.
  }
  return "a process of this user whose answer is not a libtmux-mcp holder record"
}

const inode = (path: string): number | undefined => {
  try {
    return lstatSync(path).ino
  } catch {
    return undefined
  }
}

/**
 * Moves a dead holder's socket file out of the way. It is renamed aside first and removed only if
 * it is still the file found dead; a live one that replaced it in between is linked back.
 */
const removeStale = (path: string, deadInode: number | undefined) => {
  const aside = `${path}.stale-${randomBytes(3).toString("hex")}`
  try {
    renameSync(path, aside)
  } catch {
    return
  }
  try {
    if (inode(aside) !== deadInode) linkSync(aside, path)
  } catch {
    // Another instance took the path meanwhile; theirs stands.
  }
  try {
    unlinkSync(aside)
  } catch {
    // Already gone.
  }
}

type Acquired = { readonly held: Server; readonly path: string } | { readonly holder: string } | {
  readonly unavailable: string
}

/**
 * Takes the lock at `path`: listen on a private name, then hard-link it to `path`, which fails
 * when anything is there. A live holder answers; a dead one's file is moved aside and we retry.
 */
const acquire = (path: string, info: string): Effect.Effect<Acquired> =>
  Effect.gen(function*() {
    const own = `${path}.${randomBytes(3).toString("hex")}`
    if (Buffer.byteLength(own) > 107) {
      return { unavailable: `${own} is longer than a Unix socket path may be (107 bytes)` }
    }
    const listening = yield* Effect.result(listen(own, info))
    if (listening._tag === "Failure") return { unavailable: listening.failure.message }
    const server = listening.success
    const release = () => Effect.sync(() => server.close())
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        linkSync(own, path)
        unlinkSync(own)
        return { held: server, path }
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") {
          yield* release()
          return { unavailable: (error as Error).message }
        }
      }
      const found = inode(path)
      const reply = yield* ask(path)
      if ("answer" in reply) {
        yield* release()
        return { holder: describeHolder(reply.answer) }
      }
      if (reply.refused === "ECONNREFUSED") removeStale(path, found)
    }
    yield* release()
    return { unavailable: `${path} kept changing while it was being taken` }
  })

/** Closes a held lock and removes its file, if the file is still this lock's. */
const releaseNow = (held: Server, path: string, ino: number | undefined) => {
  try {
    if (ino !== undefined && inode(path) === ino) unlinkSync(path)
  } catch {
    // Already gone.
  }
  held.close()
}

/**
 * Takes the lease for the scope's lifetime, or learns who holds it. Closing the scope releases it
 * (a host that builds the services again in one process takes it afresh); a killed process
 * leaves the file, harmlessly.
 */
export const takeLease = (
  socketPath: string,
  info: string,
  env: Environment
): Effect.Effect<LeaseState, never, Scope.Scope> => {
  const folder = lockFolder(env)
  if (typeof folder === "string") return Effect.succeed({ state: "unavailable", reason: folder })
  const path = lockPath(folder.path, "lease", socketPath)
  return Effect.acquireRelease(
    Effect.map(acquire(path, info), (result) => "held" in result ? { ...result, ino: inode(path) } : result),
    (result) => "held" in result ? Effect.sync(() => releaseNow(result.held, path, result.ino)) : Effect.void
  ).pipe(Effect.map((result): LeaseState =>
    "held" in result
      ? { state: "held" }
      : "holder" in result
      ? { state: "shared", holder: result.holder }
      : { state: "unavailable", reason: result.unavailable }
  ))
}

/** How long the creation lock is waited for, and how often it is tried meanwhile. */
export const creationLockTimings = { waitMs: 5000, retryMs: 10 }

/** One try at a lock: taken, held by another instance, or impossible. @category models */
export type Attempt<H> = { readonly held: H } | { readonly holder: string } | { readonly unavailable: string }

/**
 * Tries `attempt` until it takes the lock or finds it impossible, retrying while another instance
 * holds it, for at most the wait; undefined when it was not taken. A deadline, not a count: a
 * holder that accepts and never answers costs 500 ms per attempt.
 */
export const takeWithin = <H>(attempt: Effect.Effect<Attempt<H>>, timings = creationLockTimings) =>
  Effect.gen(function*() {
    const deadline = (yield* Clock.currentTimeMillis) + timings.waitMs
    while ((yield* Clock.currentTimeMillis) < deadline) {
      const result = yield* attempt
      if ("held" in result) return result
      if ("unavailable" in result) return undefined
      yield* Effect.sleep(timings.retryMs)
    }
    return undefined
  })

/**
 * Runs `effect` holding the creation lock of the socket, so that probing for a tmux server and
 * starting one is one step across every instance of this user. Without a lock folder it runs
 * unlocked; a lock held for longer than about 5 s is waited out, as its holder may be wedged.
 */
export const withCreationLock = <A, E, R>(
  socketPath: string,
  env: Environment,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  const folder = lockFolder(env)
  if (typeof folder === "string") return effect
  const path = lockPath(folder.path, "create", socketPath)
  const take = Effect.map(
    takeWithin(acquire(path, JSON.stringify({ pid: process.pid }))),
    (result) => result === undefined ? undefined : { held: result.held, ino: inode(path) }
  )
  return Effect.acquireUseRelease(
    take,
    () => effect,
    (lock) => Effect.sync(() => lock === undefined ? undefined : releaseNow(lock.held, path, lock.ino))
  )
}
