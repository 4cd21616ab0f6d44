/**
 * Startup: parse the configuration, check tmux, probe the pinned socket without starting a
 * server, and decide the tool selection, once. Any failure is a `StartupError` that names the
 * valid set; nothing here can leave a tmux server behind (only `list-sessions` and `-V` run).
 */
import type * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { accessSync, constants } from "node:fs"
import { join, resolve } from "node:path"
import {
  environmentSource,
  type Invocation,
  parseInvocation,
  type ServerConfig,
  type WaitRequest
} from "../domain/config.ts"
import { hostNames } from "../domain/hosts.ts"
import { hostSelectionSettings, narrowSelection } from "../domain/hostToolsets.ts"
import { type EndpointFacts, resolveSelection, type Selection } from "../domain/selection.ts"
import { formatSelector, inheritedPath, resolveSocketPath, socketFlags, type SocketSelector } from "../domain/socket.ts"
import type { SocketPlace } from "../domain/socketPlace.ts"
import {
  AdoptionRefused,
  AuditLogUnusable,
  LeaseHeld,
  LeaseUnavailable,
  RecordFolderUnusable,
  SocketUnreachable,
  type StartupError,
  startupError,
  TmuxUnusable
} from "../domain/StartupError.ts"
import type { AuditTarget } from "../layers/AuditLive.ts"
import { toolNames } from "../manifest/index.ts"
import { fallbackAuditFolder, openAuditFile } from "../platform/AuditFile.ts"
import { realpath, sameFile } from "../platform/files.ts"
import { takeLease } from "../platform/Lease.ts"
import { probeServer } from "../platform/Provenance.ts"
import { checkRecordFolder } from "../platform/RecordFolder.ts"
import type { PaneFromEnvironment } from "../services/ServerPane.ts"
import type { SocketPin } from "../services/SocketPin.ts"
import { version } from "../version.ts"
import { checkSocketPath, checkTmuxVersion, configForNewServer } from "./StartupChecks.ts"

/** Everything startup decided. @category models */
export interface StartupFacts {
  readonly config: ServerConfig
  readonly selection: Selection
  readonly pin: SocketPin["Service"]
  readonly caller: PaneFromEnvironment
  readonly tmuxVersion: string
  /** The tmux binary as an absolute path, for commands typed into panes (whose PATH may differ). */
  readonly tmuxPath: string
  /** Where audit records go: stderr (with the fallback file it may move to) or the configured file. */
  readonly audit: AuditTarget
}

type Environment = Readonly<Record<string, string | undefined>>

/**
 * Where `wait` reaches tmux: the socket as the server would pin it, checked as the server checks it
 * before it connects. No probe, no lease, no server started. @category models
 */
export interface WaitTarget {
  readonly request: WaitRequest
  readonly flags: ReadonlyArray<string>
  readonly resolvedPath: string
  readonly place: SocketPlace | undefined
  /** The socket as messages name it. */
  readonly socket: string
  readonly environment: Environment
}

/** The path of the socket `selector` names, as tmux itself resolves it under this environment. */
const socketPathOf = (selector: SocketSelector, env: Environment, uid: number): string =>
  resolveSocketPath(selector, {
    TMUX_TMPDIR: env.TMUX_TMPDIR,
    TMUX: env.TMUX,
    uid,
    realpath
  })

/** The socket of a `wait`, refused as startup refuses it (checkSocketPath). */
const waitTarget = (request: WaitRequest, env: Environment, uid: number): Effect.Effect<WaitTarget, StartupError> =>
  Effect.gen(function*() {
    const resolvedPath = socketPathOf(request.socket, env, uid)
    const place = yield* checkSocketPath(request.socket, resolvedPath, env, uid)
    return {
      request,
      flags: socketFlags(request.socket, env.TMUX),
      resolvedPath,
      place,
      socket: formatSelector(request.socket),
      environment: env
    }
  })

/** The absolute path of a binary, searched on the environment's PATH like a shell would. */
const whichBinary = (bin: string, env: Environment): string => {
  if (bin.includes("/")) return resolve(bin)
  for (const dir of (env.PATH ?? "").split(":")) {
    if (dir === "") continue
    const candidate = join(dir, bin)
    try {
      accessSync(candidate, constants.X_OK)
      return candidate
    } catch {
      // Not here.
    }
  }
  return bin
}

/** Opens the configured audit file, or names the fallback file for stderr. */
const auditTarget = (
  path: string | undefined,
  env: Environment,
  uid: number
): Effect.Effect<AuditTarget, StartupError> => {
  if (path === undefined) {
    const folder = fallbackAuditFolder(env)
    return Effect.succeed({
      kind: "stderr",
      fallbackPath: folder === undefined ? undefined : join(folder, `audit-${process.pid}.jsonl`)
    })
  }
  return Effect.tryPromise({
    try: async () => ({ kind: "file", file: await openAuditFile(path, uid), path }) as const,
    catch: (error) => startupError(new AuditLogUnusable({ path, detail: (error as Error).message }))
  })
}

/** The first tmux client on the socket: the server's state and provenance; a failure names tmux or the socket. */
const probeSocket = (config: ServerConfig, env: Environment, socket: string, path: string) =>
  probeServer(config.tmuxBin, socketFlags(config.socket, env.TMUX), socket, env, path).pipe(
    Effect.mapError((error) =>
      startupError(
        error._tag === "TmuxNotFound"
          ? new TmuxUnusable({ bin: config.tmuxBin, detail: error.message })
          : new SocketUnreachable({ socket, detail: error.message })
      )
    )
  )

/**
 * The tool selection from the settings and what the probe found, narrowed to what a hub's hosts
 * serve; with the host table, whose narrowed hosts get their own selection settings.
 */
const selectionFor = (config: ServerConfig, found: Pick<EndpointFacts, "serverState" | "provenance">) =>
  Effect.gen(function*() {
    const resolved = yield* Effect.fromResult(resolveSelection(
      config.selection,
      {
        socketExplicit: config.socketExplicit,
        tmuxConfig: config.tmuxConfig.kind,
        serverState: found.serverState,
        provenance: found.provenance
      },
      // The registry is total over the manifest (its type fails to compile otherwise); naming the
      // tools from the manifest keeps their programs out of what startup loads.
      new Set(toolNames)
    ))
    const table = config.hosts
    const narrowed = table?.toolsets
    const selection = table === undefined
      ? resolved
      : yield* Effect.fromResult(narrowSelection(resolved, hostNames(table), narrowed))
    // A narrowed host's server starts with its own selection settings (hostToolsets.ts).
    const hosts = table === undefined || narrowed === undefined ? table : {
      ...table,
      remotes: table.remotes.map((host) => {
        const only = narrowed[host.name]
        return only === undefined
          ? host
          : { ...host, selection: hostSelectionSettings(resolved, config.selection, only) }
      })
    }
    return { selection, hosts }
  })

/** The pane this process runs in, if any, and whether it is on the pinned socket (`resolvedPath`). */
const callerOf = (env: Environment, resolvedPath: string): PaneFromEnvironment => {
  const callerSocket = inheritedPath(env.TMUX)
  const callerPath = callerSocket === undefined ? undefined : realpath(callerSocket) ?? callerSocket
  return {
    paneId: env.TMUX_PANE === undefined || env.TMUX_PANE === "" ? undefined : env.TMUX_PANE,
    socketPath: callerPath,
    onPinnedSocket: callerPath !== undefined && sameFile(callerPath, resolvedPath)
  }
}

/** Takes the socket's lease for the scope; an exclusive lease that is not held stops startup. */
const leaseFor = (config: ServerConfig, resolvedPath: string, env: Environment) =>
  Effect.gen(function*() {
    const lease = yield* takeLease(resolvedPath, JSON.stringify({ pid: process.pid, version }), env)
    if (config.lease === "exclusive" && lease.state !== "held") {
      return yield* Effect.fail(startupError(
        lease.state === "shared"
          ? new LeaseHeld({ socketPath: resolvedPath, holder: lease.holder })
          : new LeaseUnavailable({ detail: lease.reason })
      ))
    }
    return lease
  })

/**
 * Decides everything for serving, from the environment and the command line. The settings are read
 * from `settings` (by default the environment itself). The lease it takes lasts as long as the scope.
 */
export const startup = (
  env: Readonly<Record<string, string | undefined>>,
  argv: ReadonlyArray<string>,
  uid: number,
  settings: ConfigProvider.ConfigProvider = environmentSource(env)
): Effect.Effect<
  | Exclude<Invocation, { readonly kind: "serve" | "wait" }>
  | { readonly kind: "facts"; readonly facts: StartupFacts }
  | { readonly kind: "wait"; readonly target: WaitTarget },
  StartupError,
  Scope.Scope
> =>
  Effect.gen(function*() {
    const invocation = yield* parseInvocation(settings, argv)
    if (invocation.kind === "wait") return { kind: "wait", target: yield* waitTarget(invocation, env, uid) } as const
    if (invocation.kind !== "serve") return invocation
    const config = invocation.config
    const newServerConfig = yield* configForNewServer(config, env, uid)
    const resolvedPath = socketPathOf(config.socket, env, uid)
    // Before anything connects a tmux client to the socket (the probe below is the first, when something is there).
    const place = yield* checkSocketPath(config.socket, resolvedPath, env, uid)
    const socket = formatSelector(config.socket)
    const probe = probeSocket(config, env, socket, resolvedPath)
    const [tmuxVersion, found] = yield* Effect.all([checkTmuxVersion(config, env), probe], { concurrency: 2 })
    const serverState = found.state
    if (config.adopt === "refuse" && found.provenance === "unknown") {
      return yield* Effect.fail(
        startupError(new AdoptionRefused({ socket }))
      )
    }
    const { selection, hosts } = yield* selectionFor(config, { serverState, provenance: found.provenance })
    const caller = callerOf(env, resolvedPath)
    const lease = yield* leaseFor(config, resolvedPath, env)
    const pin = {
      selector: config.socket,
      flags: socketFlags(config.socket, env.TMUX),
      resolvedPath,
      place,
      serverStateAtStartup: serverState,
      provenanceAtStartup: found.provenance,
      provenanceRecord: found.record,
      hiddenAtStartup: found.hidden,
      lease,
      newServerConfig,
      environment: env
    }
    const audit = yield* auditTarget(config.auditLog, env, uid)
    const record = config.record
    if (record !== undefined) {
      yield* Effect.tryPromise({
        try: () => checkRecordFolder(record, uid),
        catch: (error) => startupError(new RecordFolderUnusable({ path: record, detail: (error as Error).message }))
      })
    }
    return {
      kind: "facts",
      facts: {
        config: hosts === config.hosts ? config : { ...config, hosts },
        selection,
        pin,
        caller,
        tmuxVersion,
        tmuxPath: whichBinary(config.tmuxBin, env),
        audit
      }
    } as const
  })
