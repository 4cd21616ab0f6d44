/**
 * The live authority services: the contract's one constructor (`makeAuthorities`, which checks
 * every command against its authority's grammar) over the raw runner (TmuxExec.ts). Dead instances'
 * leftovers are removed a moment after startup, and closing the layer's scope deletes the paste
 * buffers that calls interrupted mid-paste left behind (Leftovers.ts).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { hiddenGuards } from "../domain/hiddenTargets.ts"
import { parseTag } from "../domain/instance.ts"
import { controlSessionName } from "../domain/protocolNames.ts"
import { formatSelector, type SocketSelector } from "../domain/socket.ts"
import { type ControlLink, hiddenRefusal, makeControlLink } from "../platform/ControlLink.ts"
import { withCreationLock } from "../platform/Lease.ts"
import { removeBuffers, removeDeadConnections, sweepLeftovers } from "../platform/Leftovers.ts"
import { layer as procLayer, Proc } from "../platform/Proc.ts"
import { probeServer, provenanceOption } from "../platform/Provenance.ts"
import { guardPlace, socketMissing } from "../platform/SocketGuard.ts"
import { thisTag } from "../platform/thisInstance.ts"
import { buildArgv, commandLabel, execTmux, makePool, poolSize } from "../platform/TmuxExec.ts"
import type { TmuxError } from "../services/errors.ts"
import { SocketPin } from "../services/SocketPin.ts"
import {
  type Authorities,
  type Created,
  makeAuthorities,
  type PinnedRunner as Runner,
  type RunnerOptions,
  type SpawnOptions
} from "../services/Tmux.ts"
import { TmuxUpkeep } from "../services/TmuxUpkeep.ts"

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
  const configuration = pin.newServerConfig.label
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

/** When, after startup, dead instances' leftovers are looked for. */
const sweepDelayMs = 1000

/**
 * The sweeps: at close, the paste buffers a paste interrupted between its load and its paste left
 * (ours, dead instances' too); once, a moment after startup, dead instances' leftovers (not in the
 * way of the first calls). Outside the pool (at close, calls in flight may still hold its permits),
 * over the connection while it is open, never opening one, else by a forked client.
 */
const sweeps = (forked: Runner, link: ControlLink | undefined, pin: SocketPin["Service"], proc: Proc["Service"]) =>
  Effect.gen(function*() {
    const raw: Runner = link === undefined ? forked : (commands, options) => link.runIfOpen(commands, options, forked)
    // No socket, no server ever ran there (an instance that made none): no buffer to remove.
    yield* Effect.addFinalizer(() =>
      Effect.suspend(() => socketMissing(pin.resolvedPath) ? Effect.void : removeBuffers(raw, proc, false))
    )
    yield* Effect.forkScoped(Effect.andThen(Effect.sleep(sweepDelayMs), sweepLeftovers(raw, proc, pin.flags)))
  })

/**
 * On a server that runs already, the connection is made at startup, before any call of this
 * instance, once dead instances' hidden sessions are gone (`removeDeadConnections`).
 */
const connectAtStartup = (
  forked: Runner,
  link: ControlLink | undefined,
  pin: SocketPin["Service"],
  proc: Proc["Service"]
) =>
  link === undefined || pin.serverStateAtStartup !== "existing"
    ? Effect.void
    : Effect.andThen(removeDeadConnections(forked, proc, pin.hiddenAtStartup), Effect.sync(() => link.open()))

/** How tmux commands reach the server (LIBTMUX_TRANSPORT). @category models */
export type Transport = "auto" | "control" | "spawn"

/**
 * Whether commands go over one control connection: asked for, or by default on a socket selected by
 * name, the project's own (`name:libtmux-mcp` unless set), but not tmux's `default`, which is a
 * person's. An `inherit` or `path:` socket is a person's too: spawned clients only, unless asked.
 */
export const usesControl = (transport: Transport, selector: SocketSelector): boolean =>
  transport === "control" || (transport === "auto" && selector.form === "name" && selector.name !== "default")

/** The live authority services over the pinned socket, and the server's own runner. @category layers */
export const layer = (
  bin: string,
  transport: Transport = "auto"
): Layer.Layer<Authorities | TmuxUpkeep, never, SocketPin> =>
  Layer.effectContext(Effect.gen(function*() {
    const pin = yield* SocketPin
    const proc = yield* Proc
    const socket = formatSelector(pin.selector)
    // A burst queues here instead of piling onto the tmux server; blocking wait-for clients skip the queue.
    const pooled = yield* makePool(poolSize())
    // Every client of ours checks the socket's place first, just before it is spawned: after the
    // last session ends, the socket can be gone and bound again by another user. `guarded`: an
    // instance without a connection is told of no hidden session (another instance's may be on the
    // socket), so its lists check the IDs they name first (domain/hiddenTargets.ts).
    const exec = (
      flags: ReadonlyArray<string>,
      commands: ReadonlyArray<ReadonlyArray<string>>,
      options: RunnerOptions,
      passFd?: number,
      guarded = false
    ) =>
      Effect.andThen(
        guardPlace(pin.place, "connect"),
        execTmux(bin, buildArgv(flags, guarded ? [...hiddenGuards(commands), ...commands] : commands), socket, {
          ...options,
          env: pin.environment,
          passFd,
          label: commandLabel(commands)
        }).pipe(Effect.mapError((error) => guarded ? hiddenRefusal(commands, error) : error))
      )
    // One control connection carries what it can (platform/ControlLink.ts); the socket is named by
    // its path, which the place check above guards, whatever selected it.
    const link = usesControl(transport, pin.selector)
      ? makeControlLink(
        {
          bin,
          socketFlags: ["-S", pin.resolvedPath],
          socketPath: pin.resolvedPath,
          owner: { pid: process.pid, started: String(parseTag(thisTag)?.started ?? "") },
          env: pin.environment,
          session: controlSessionName(thisTag)
        },
        guardPlace(pin.place, "connect")
      )
      : undefined
    if (link !== undefined) yield* Effect.addFinalizer(() => Effect.promise(link.shutdown))
    // Outside the pool and the connection: for the removal at startup and for the sweeps.
    const forked: Runner = (commands, options) => exec(pin.flags, commands, options)
    yield* connectAtStartup(forked, link, pin, proc)
    const pinned = (extraFlags: ReadonlyArray<string>, passFd?: number): Runner => {
      const spawned = (commands: ReadonlyArray<ReadonlyArray<string>>, options: RunnerOptions) =>
        pooled(commands, exec([...pin.flags, ...extraFlags], commands, options, passFd, link === undefined))
      return link === undefined ? spawned : (commands, options) => link.run(commands, options, spawned)
    }
    // A spawn may start the server, so only spawns carry the configuration file (and its descriptor).
    const spawn = pinned(pin.newServerConfig.flags, pin.newServerConfig.fd)
    yield* sweeps(forked, link, pin, proc)
    const create = creating(
      spawn,
      pin,
      Effect.andThen(
        guardPlace(pin.place, "connect"),
        probeServer(bin, pin.flags, socket, pin.environment, pin.resolvedPath)
      )
    )
    const run = pinned([])
    return Context.add(
      makeAuthorities({
        run,
        spawn,
        // A server this call started (or found) is there to connect to now, not after the retry delay.
        create: (commands, options) => Effect.tap(create(commands, options), () => Effect.sync(() => link?.wake()))
      }),
      TmuxUpkeep,
      TmuxUpkeep.of({ run })
    )
  })).pipe(Layer.provide(procLayer))
