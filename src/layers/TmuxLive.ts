/**
 * The live authority services: the contract's one constructor (`makeAuthorities`, which checks
 * every command against its authority's grammar) over the raw runner (TmuxExec.ts). Closing the
 * layer's scope deletes the paste buffers that calls interrupted mid-paste left behind.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { formatSelector } from "../domain/socket.ts"
import type { TmuxError } from "../services/errors.ts"
import { SocketPin } from "../services/SocketPin.ts"
import {
  type Authorities,
  type Created,
  makeAuthorities,
  pasteBufferPrefix,
  type RunnerOptions,
  type SpawnOptions
} from "../services/Tmux.ts"
import { withCreationLock } from "./Lease.ts"
import { minimalConfigPath, probeServer, provenanceOption } from "./Provenance.ts"
import { guardPlace } from "./SocketGuard.ts"
import { buildArgv, execTmux, makePool, poolSize } from "./TmuxExec.ts"

/** Runs commands in one tmux invocation on the pinned socket. */
type Runner = (
  commands: ReadonlyArray<ReadonlyArray<string>>,
  options: RunnerOptions
) => Effect.Effect<string, TmuxError>

/**
 * The spawn that may start the server: probe and start under the creation lock. A server this call
 * starts gets its provenance record in the same invocation (the minimal configuration file sets it
 * itself, before any window exists).
 */
const creating = (
  run: Runner,
  pin: SocketPin["Service"],
  probe: Effect.Effect<Effect.Success<ReturnType<typeof probeServer>>, TmuxError>
) => {
  const configuration = pin.configFlags.length === 0
    ? (pin.selector.form === "inherit" ? "tmux-default" : "user")
    : pin.configFlags[1] === minimalConfigPath
    ? "minimal"
    : `path:${pin.configFlags[1]}`
  const record = configuration === "minimal"
    ? []
    : [["set-option", "-s", provenanceOption, `libtmux-mcp ${configuration}`]]
  return (commands: ReadonlyArray<ReadonlyArray<string>>, options: SpawnOptions): Effect.Effect<Created, TmuxError> =>
    withCreationLock(
      pin.resolvedPath,
      pin.environment,
      Effect.gen(function*() {
        const found = yield* probe
        const startedServer = found.state === "absent"
        // tmux is about to start a server: it creates `<socket>.lock` beside the socket first.
        if (startedServer) yield* guardPlace(pin.place, "start")
        const stdout = yield* run([...commands, ...(startedServer ? record : [])], options)
        return {
          stdout,
          startedServer,
          provenance: startedServer ? `libtmux-mcp ${configuration}` : found.record ?? "unknown"
        }
      })
    )
}

/** How long each tmux invocation of the cleanup at close may take: shutdown stays prompt. */
const cleanupTimeoutMs = 1000

/**
 * Deletes our paste buffers that are still there: a paste interrupted between `load-buffer` and
 * `paste-buffer -d` leaves its text in the server. Best effort: no server (nothing to delete), a
 * server that went away or a slow one end it quietly.
 */
const removePasteBuffers = (run: Runner): Effect.Effect<void> =>
  run([["list-buffers", "-F", "#{buffer_name}"]], { timeoutMs: cleanupTimeoutMs }).pipe(
    // Only this instance's: another instance on the socket may have a paste in flight.
    Effect.map((stdout) => stdout.split("\n").filter((name) => name.startsWith(`${pasteBufferPrefix}${process.pid}-`))),
    Effect.flatMap((ours) =>
      ours.length === 0
        ? Effect.void
        : run(ours.map((name) => ["delete-buffer", "-b", name]), { timeoutMs: cleanupTimeoutMs })
    ),
    Effect.ignore
  )

/** The live authority services over the pinned socket. @category layers */
export const layer = (bin: string): Layer.Layer<Authorities, never, SocketPin> =>
  Layer.effectContext(Effect.gen(function*() {
    const pin = yield* SocketPin
    const socket = formatSelector(pin.selector)
    // A burst queues here instead of piling onto the tmux server; blocking wait-for clients skip the queue.
    const pooled = yield* makePool(poolSize())
    // Every client of ours checks the socket's place first, just before it is spawned: after the
    // last session ends, the socket can be gone and bound again by another user.
    const exec = (
      flags: ReadonlyArray<string>,
      commands: ReadonlyArray<ReadonlyArray<string>>,
      options: RunnerOptions
    ) =>
      Effect.andThen(
        guardPlace(pin.place, "connect"),
        execTmux(bin, buildArgv(flags, commands), socket, { ...options, env: pin.environment })
      )
    const pinned = (extraFlags: ReadonlyArray<string>): Runner => (commands, options) =>
      pooled(commands, exec([...pin.flags, ...extraFlags], commands, options))
    // A spawn may start the server, so only spawns carry the configuration-file flags.
    const spawn = pinned(pin.configFlags)
    // Outside the pool: at close, calls in flight may still hold its permits.
    yield* Effect.addFinalizer(() => removePasteBuffers((commands, options) => exec(pin.flags, commands, options)))
    return makeAuthorities({
      run: pinned([]),
      spawn,
      create: creating(
        spawn,
        pin,
        Effect.andThen(guardPlace(pin.place, "connect"), probeServer(bin, pin.flags, socket, pin.environment))
      )
    })
  }))
