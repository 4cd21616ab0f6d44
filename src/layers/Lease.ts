/**
 * The advisory lease and the creation lock, keyed to the resolved socket path. Both are Linux
 * abstract Unix sockets named after a hash of the path: binding one is atomic and exclusive, and
 * the kernel releases it when the process ends, however it ends, so a crashed instance never leaves
 * a stale lease behind. Elsewhere than Linux the lease is reported as unavailable.
 *
 * They are advisory: they coordinate instances of this server. Any process of the same user can
 * still connect to the tmux socket itself.
 */
import { createHash } from "node:crypto"
import { createConnection, createServer, type Server } from "node:net"
import * as Effect from "effect/Effect"
import type { LeaseState } from "../services/SocketPin.ts"

const abstractName = (purpose: string, socketPath: string) =>
  `\0libtmux-mcp-${purpose}-${createHash("sha256").update(socketPath).digest("hex").slice(0, 32)}`

/** Binds an abstract socket; answers connections with `info`. Fails with EADDRINUSE when held. */
const bind = (name: string, info: string) =>
  Effect.callback<Server, NodeJS.ErrnoException>((resume) => {
    const server = createServer((connection) => connection.end(info))
    server.once("error", (error: NodeJS.ErrnoException) => resume(Effect.fail(error)))
    server.listen({ path: name, exclusive: true }, () => {
      server.unref()
      resume(Effect.succeed(server))
    })
  })

/** What the holder of a lease says about itself. */
const ask = (name: string) =>
  Effect.callback<string>((resume) => {
    let text = ""
    const socket = createConnection({ path: name })
    socket.setTimeout(500)
    socket.on("data", (chunk) => (text += chunk.toString("utf8")))
    socket.on("end", () => resume(Effect.succeed(text)))
    socket.on("timeout", () => socket.destroy())
    socket.on("error", () => resume(Effect.succeed("")))
    socket.on("close", () => resume(Effect.succeed(text)))
  })

/** The holder's answer, in words: `pid 123 (libtmux-mcp 0.1.0)`. */
const describeHolder = (answer: string): string => {
  try {
    const { pid, version } = JSON.parse(answer) as { pid: number; version: string }
    return `pid ${pid} (libtmux-mcp ${version})`
  } catch {
    return "another libtmux-mcp instance"
  }
}

/** Takes the lease for this process's lifetime, or learns who holds it. */
export const takeLease = (socketPath: string, info: string): Effect.Effect<LeaseState> =>
  process.platform !== "linux"
    ? Effect.succeed({ state: "unavailable", reason: `abstract sockets are Linux-only (this is ${process.platform})` })
    : bind(abstractName("lease", socketPath), info).pipe(
      Effect.as<LeaseState>({ state: "held" }),
      Effect.catch((error): Effect.Effect<LeaseState> =>
        error.code === "EADDRINUSE"
          ? Effect.map(ask(abstractName("lease", socketPath)), (holder): LeaseState => ({ state: "shared", holder: describeHolder(holder) }))
          : Effect.succeed({ state: "unavailable", reason: error.message }))
    )

/**
 * Runs `effect` holding the creation lock of the socket, so that probing for a tmux server and
 * starting one is one step across every instance on this machine.
 */
export const withCreationLock = <A, E, R>(socketPath: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
  if (process.platform !== "linux") return effect
  const name = abstractName("create", socketPath)
  const acquire: Effect.Effect<Server | undefined> = Effect.gen(function*() {
    for (let attempt = 0; attempt < 500; attempt++) {
      const result = yield* Effect.result(bind(name, String(process.pid)))
      if (result._tag === "Success") return result.success
      if (result.failure.code !== "EADDRINUSE") return undefined
      yield* Effect.sleep(10)
    }
    return undefined
  })
  return Effect.acquireUseRelease(acquire, () => effect, (server) => Effect.sync(() => server?.close()))
}
