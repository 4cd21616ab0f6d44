/**
 * Startup: parse the configuration, check tmux, probe the pinned socket without starting a
 * server, and decide the tool selection, once. Any failure is a `StartupError` that names the
 * valid set; nothing here can leave a tmux server behind (only `list-sessions` and `-V` run).
 */
import * as Effect from "effect/Effect"
import { accessSync, constants, realpathSync } from "node:fs"
import { join, resolve } from "node:path"
import { type Invocation, parseInvocation, type ServerConfig } from "../domain/config.ts"
import { resolveSelection, type Selection } from "../domain/selection.ts"
import { formatSelector, resolveSocketPath, socketFlags } from "../domain/socket.ts"
import { startupError, type StartupError } from "../domain/StartupError.ts"
import type { CallerContext } from "../services/CallerContext.ts"
import type { SocketPin } from "../services/SocketPin.ts"
import { registeredNames } from "../tools/index.ts"
import { version } from "../version.ts"
import { fallbackAuditFolder, openAuditFile } from "./AuditFile.ts"
import type { AuditTarget } from "./AuditLive.ts"
import { takeLease } from "./Lease.ts"
import { minimalConfigPath, probeServer } from "./Provenance.ts"
import { execTmux } from "./TmuxExec.ts"

/** Everything startup decided. @category models */
export interface StartupFacts {
  readonly config: ServerConfig
  readonly selection: Selection
  readonly pin: SocketPin["Service"]
  readonly caller: CallerContext["Service"]
  readonly tmuxVersion: string
  /** The tmux binary as an absolute path, for commands typed into panes (whose PATH may differ). */
  readonly tmuxPath: string
  /** Where audit records go: stderr (with the fallback file it may move to) or the configured file. */
  readonly audit: AuditTarget
}

type Environment = Readonly<Record<string, string | undefined>>

const realpath = (path: string): string | undefined => {
  try {
    return realpathSync(path)
  } catch {
    return undefined
  }
}

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

/** The oldest tmux this project supports. */
const minimumTmux = [3, 2] as const

const checkTmuxVersion = (config: ServerConfig, env: Environment) =>
  execTmux(config.tmuxBin, ["-V"], "-", { env }).pipe(
    Effect.mapError((error) => startupError(error.message)),
    Effect.flatMap((output) => {
      const text = output.trim()
      const match = /(\d+)\.(\d+)/u.exec(text)
      // Development builds ("tmux master", "tmux next-3.6") carry no comparable release number.
      if (match === null) return Effect.succeed(text)
      const [major, minor] = [Number(match[1]), Number(match[2])]
      return major > minimumTmux[0] || (major === minimumTmux[0] && minor >= minimumTmux[1])
        ? Effect.succeed(text)
        : Effect.fail(startupError(`${config.tmuxBin} is ${text}; libtmux-mcp needs tmux ${minimumTmux.join(".")} or newer`))
    })
  )

const configFlags = (config: ServerConfig): Effect.Effect<ReadonlyArray<string>, StartupError> => {
  if (config.socket.form === "inherit" || config.tmuxConfig.kind === "user") return Effect.succeed([])
  const path = config.tmuxConfig.kind === "minimal" ? minimalConfigPath : config.tmuxConfig.path
  return Effect.try({
    try: () => {
      accessSync(path, constants.R_OK)
      return ["-f", path]
    },
    catch: () => startupError(`LIBTMUX_TMUX_CONFIG file ${path} does not exist or cannot be read`)
  })
}

/** Opens the configured audit file, or names the fallback file for stderr. */
const auditTarget = (path: string | undefined, env: Environment, uid: number): Effect.Effect<AuditTarget, StartupError> => {
  if (path === undefined) {
    const folder = fallbackAuditFolder(env)
    return Effect.succeed({ kind: "stderr", fallbackPath: folder === undefined ? undefined : join(folder, `audit-${process.pid}.jsonl`) })
  }
  return Effect.try({
    try: () => ({ kind: "file", fd: openAuditFile(path, uid), path }) as const,
    catch: (error) => startupError(`LIBTMUX_AUDIT_LOG ${path} cannot be used for audit records: ${(error as Error).message}`)
  })
}

/** Decides everything for serving, from the environment and the command line. */
export const startup = (
  env: Readonly<Record<string, string | undefined>>,
  argv: ReadonlyArray<string>,
  uid: number
): Effect.Effect<Exclude<Invocation, { readonly kind: "serve" }> | { readonly kind: "facts"; readonly facts: StartupFacts }, StartupError> =>
  Effect.gen(function*() {
    const invocation = yield* Effect.fromResult(parseInvocation(env, argv))
    if (invocation.kind !== "serve") return invocation
    const config = invocation.config
    const flags = yield* configFlags(config)
    const probe = probeServer(config.tmuxBin, socketFlags(config.socket), formatSelector(config.socket), env).pipe(
      Effect.mapError((error) => startupError(`cannot probe tmux socket ${formatSelector(config.socket)}: ${error.message}`))
    )
    const [tmuxVersion, found] = yield* Effect.all([checkTmuxVersion(config, env), probe], { concurrency: 2 })
    const serverState = found.state
    if (config.adopt === "refuse" && found.provenance === "unknown") {
      return yield* Effect.fail(startupError(
        `a tmux server is already running on socket ${formatSelector(config.socket)} and it does not record that libtmux-mcp started it; ` +
          "LIBTMUX_ADOPT=refuse stops here: stop that server (tmux kill-server), choose another socket, or set LIBTMUX_ADOPT=adopt"
      ))
    }
    const resolvedPath = resolveSocketPath(config.socket, { TMUX_TMPDIR: env.TMUX_TMPDIR, TMUX: env.TMUX, uid, realpath })
    const selection = yield* Effect.fromResult(resolveSelection(
      config.selection,
      { socketExplicit: config.socketExplicit, tmuxConfig: config.tmuxConfig.kind, serverState, provenance: found.provenance },
      registeredNames
    ))
    const callerSocket = env.TMUX === undefined || env.TMUX === "" ? undefined : env.TMUX.split(",")[0]
    const callerPath = callerSocket === undefined ? undefined : realpath(callerSocket) ?? callerSocket
    const caller = {
      paneId: env.TMUX_PANE === undefined || env.TMUX_PANE === "" ? undefined : env.TMUX_PANE,
      socketPath: callerPath,
      onPinnedSocket: callerPath !== undefined && callerPath === (realpath(resolvedPath) ?? resolvedPath)
    }
    const lease = yield* takeLease(resolvedPath, JSON.stringify({ pid: process.pid, version }))
    if (config.lease === "exclusive" && lease.state !== "held") {
      return yield* Effect.fail(startupError(
        lease.state === "shared"
          ? `another libtmux-mcp instance holds the lease on ${resolvedPath} (${lease.holder}); LIBTMUX_LEASE=exclusive stops here: stop it, use another socket, or set LIBTMUX_LEASE=shared`
          : `LIBTMUX_LEASE=exclusive needs a lease, which is unavailable here (${lease.reason}); set LIBTMUX_LEASE=shared`
      ))
    }
    const pin = {
      selector: config.socket,
      flags: socketFlags(config.socket),
      resolvedPath,
      serverStateAtStartup: serverState,
      provenanceAtStartup: found.provenance,
      provenanceRecord: found.record,
      lease,
      configFlags: flags,
      environment: env
    }
    const audit = yield* auditTarget(config.auditLog, env, uid)
    return { kind: "facts", facts: { config, selection, pin, caller, tmuxVersion, tmuxPath: whichBinary(config.tmuxBin, env), audit } } as const
  })


