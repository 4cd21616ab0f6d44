/**
 * Startup configuration: environment variables, each mirrored by a CLI flag (a flag beats its
 * variable), read as Config values and checked by pure rules; every error names the valid set, and
 * nothing here touches tmux.
 */
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { resolve } from "node:path"
import { parseArgv, printedHub } from "./argv.ts"
import { type HostTable, parseHostTable } from "./hosts.ts"
import { type PrintConfig, printConfigInvocation } from "./printConfig.ts"
import type { SelectionInput } from "./selection.ts"
import {
  choices,
  oneOf,
  parseAuditLog,
  parseLinkTimeout,
  parseRecord,
  parseSuppressHistory,
  parseTmuxBin,
  parseTmuxConfig,
  retiredVariables,
  type TmuxConfigChoice
} from "./settingRules.ts"
import { textOf, unreadable, type Values, type Variable } from "./settings.ts"
import { defaultSocket, parseSocketSelector, type SocketSelector } from "./socket.ts"
import { parseWatchSsh, type SshReach } from "./ssh.ts"
import { settingInvalid, type StartupError } from "./StartupError.ts"
import { parseWait, type WaitRequest } from "./waitArgs.ts"
import { parseWaitMax } from "./waitCeiling.ts"

export { helpText } from "./help.ts"
export { retiredVariables, type TmuxConfigChoice, unknownSettingWarnings } from "./settingRules.ts"
export { settings } from "./settings.ts"
export type { WaitRequest } from "./waitArgs.ts"

/** The parsed configuration. @category models */
export interface ServerConfig {
  readonly socket: SocketSelector
  /** Whether LIBTMUX_SOCKET (or --socket) was given at all. */
  readonly socketExplicit: boolean
  readonly tmuxConfig: TmuxConfigChoice
  readonly selection: SelectionInput
  readonly suppressHistory: boolean
  readonly waitMaxSeconds: number
  readonly tmuxBin: string
  /** How tmux commands reach the server: one control connection where it applies, or a client per command. */
  readonly transport: "auto" | "control" | "spawn"
  /** Where audit records go: a file path, or stderr when undefined. */
  readonly auditLog: string | undefined
  /** The folder recordings go to (LIBTMUX_RECORD); undefined: nothing is recorded. */
  readonly record?: string | undefined
  /** Whether to adopt a tmux server of unknown provenance found at startup. */
  readonly adopt: "adopt" | "refuse"
  /** Whether another instance may share the socket. */
  readonly lease: "shared" | "exclusive"
  /** How the agent's machine reaches this one by ssh, for `watch_command`; undefined when it runs here. */
  readonly watchSsh: SshReach | undefined
  /** The hosts this server is a hub for (`--host`); undefined: this machine only, as without a hub. */
  readonly hosts?: HostTable | undefined
  /**
   * LIBTMUX_LINK_TIMEOUT: on a hub, how long a host's link may stay silent (undefined: the default);
   * on any other server, how long without a message from its client before it exits (undefined: never).
   */
  readonly linkTimeoutSeconds?: number | undefined
  /** The selection settings as given, passed on to each host's server so that it offers the same tools. */
  readonly selectionGiven?: Readonly<Record<string, string>> | undefined
}

/** What the command line asked for. @category models */
export type Invocation =
  | { readonly kind: "help" }
  | { readonly kind: "version" }
  | PrintConfig
  | WaitRequest
  | { readonly kind: "serve"; readonly config: ServerConfig }

/** A setting as a Config value, checked by its rule: a bad value is the error that names the valid set. */
const setting = <A>(
  variable: Variable,
  rule: (raw: string | undefined) => Result.Result<A, StartupError>
): Config.Config<Result.Result<A, StartupError>> => Config.map(textOf(variable), rule)

const orDefault = <A>(fallback: A, parse: (raw: string) => Result.Result<A, StartupError>) =>
(
  raw: string | undefined
): Result.Result<A, StartupError> => raw === undefined ? Result.succeed(fallback) : parse(raw)

/** The settings of a serving process, each a Config value; the checks across settings come after. */
const serverSettings = Config.all({
  retired: Config.all(
    retiredVariables.map(([variable, message]) =>
      Config.map(
        textOf(variable),
        (value) => value === undefined ? undefined : settingInvalid(variable, message(value))
      )
    )
  ),
  socketGiven: textOf("LIBTMUX_SOCKET"),
  socket: setting("LIBTMUX_SOCKET", orDefault(defaultSocket, parseSocketSelector)),
  tmuxConfigGiven: textOf("LIBTMUX_TMUX_CONFIG"),
  tmuxConfig: setting("LIBTMUX_TMUX_CONFIG", orDefault({ kind: "minimal" } as TmuxConfigChoice, parseTmuxConfig)),
  toolsets: textOf("LIBTMUX_TOOLSETS"),
  tools: textOf("LIBTMUX_TOOLS"),
  excludeTools: textOf("LIBTMUX_EXCLUDE_TOOLS"),
  suppressHistory: setting("LIBTMUX_SUPPRESS_HISTORY", parseSuppressHistory),
  waitMaxSeconds: setting("LIBTMUX_MCP_WAIT_MAX_SECONDS", parseWaitMax),
  tmuxBin: setting("LIBTMUX_TMUX_BIN", parseTmuxBin),
  transport: setting("LIBTMUX_TRANSPORT", (raw) => oneOf("LIBTMUX_TRANSPORT", raw, choices.LIBTMUX_TRANSPORT)),
  auditLog: setting("LIBTMUX_AUDIT_LOG", parseAuditLog),
  record: setting("LIBTMUX_RECORD", parseRecord),
  adopt: setting("LIBTMUX_ADOPT", (raw) => oneOf("LIBTMUX_ADOPT", raw, choices.LIBTMUX_ADOPT)),
  lease: setting("LIBTMUX_LEASE", (raw) => oneOf("LIBTMUX_LEASE", raw, choices.LIBTMUX_LEASE)),
  watchSsh: textOf("LIBTMUX_WATCH_SSH"),
  watchSshConfig: textOf("LIBTMUX_WATCH_SSH_CONFIG"),
  hosts: textOf("LIBTMUX_HOSTS"),
  hostToolsets: textOf("LIBTMUX_HOST_TOOLSETS"),
  linkTimeout: setting("LIBTMUX_LINK_TIMEOUT", parseLinkTimeout)
})

/**
 * Where settings are read from: the flags first (a flag beats its variable), then `source` (the
 * process's environment, or a host's record or ConfigProvider). Empty values are kept: an empty
 * LIBTMUX_TOOLSETS selects none.
 */
const withFlags = (values: Values, source: ConfigProvider.ConfigProvider): ConfigProvider.ConfigProvider =>
  ConfigProvider.orElse(ConfigProvider.fromUnknown(values, { preserveEmptyStrings: true }), source)

/** An environment record as a settings source. */
export const environmentSource = (env: Readonly<Record<string, string | undefined>>): ConfigProvider.ConfigProvider =>
  ConfigProvider.fromEnvRecord({ ...env }, { preserveEmptyStrings: true })

/** Parses the command line and the settings `source` holds. */
export const parseInvocation = (
  source: ConfigProvider.ConfigProvider,
  argv: ReadonlyArray<string>,
  cwd: string = process.cwd()
): Effect.Effect<Invocation, StartupError> =>
  Effect.gen(function*() {
    if (argv[0] === "wait") return yield* parseWait(source, argv.slice(1))
    const cli = yield* Effect.fromResult(parseArgv(argv))
    if (cli.help) return { kind: "help" } as const
    if (cli.version) return { kind: "version" } as const
    if (cli.printConfig !== undefined) {
      const tmux = yield* Effect.mapError(textOf("TMUX").parse(source), unreadable)
      const hub = yield* Effect.fromResult(printedHub(cli, cwd))
      return yield* Effect.fromResult(printConfigInvocation(cli.printConfig, cli.values, tmux, cli.entry, cwd, hub))
    }
    const read = yield* Effect.mapError(serverSettings.parse(withFlags(cli.values, source)), unreadable)
    const retired = read.retired.find((refusal) => refusal !== undefined)
    if (retired !== undefined) return yield* Effect.fail(retired)
    return yield* Effect.fromResult(Result.gen(function*() {
      const socket = yield* read.socket
      const tmuxConfig = yield* read.tmuxConfig
      if (socket.form === "inherit" && read.tmuxConfigGiven !== undefined) {
        return yield* Result.fail(settingInvalid(
          "LIBTMUX_TMUX_CONFIG",
          "LIBTMUX_TMUX_CONFIG applies only to a server this process starts on a name: or path: socket; " +
            "with LIBTMUX_SOCKET=inherit tmux's own selection and configuration apply, so unset LIBTMUX_TMUX_CONFIG"
        ))
      }
      const tmuxBin = yield* read.tmuxBin
      const hosts = yield* parseHostTable({
        hosts: read.hosts === undefined || read.hosts === "" ? [] : read.hosts.split(","),
        noLocal: cli.noLocal,
        remoteNode: cli.remoteNode,
        remoteBin: cli.remoteBin,
        sshConfig: cli.entry["--ssh-config"],
        hostToolsets: read.hostToolsets
      }, (path) => resolve(cwd, path))
      const selectionGiven: Record<string, string> = {}
      if (read.toolsets !== undefined) selectionGiven.LIBTMUX_TOOLSETS = read.toolsets
      if (read.tools !== undefined) selectionGiven.LIBTMUX_TOOLS = read.tools
      if (read.excludeTools !== undefined) selectionGiven.LIBTMUX_EXCLUDE_TOOLS = read.excludeTools
      const config: ServerConfig = {
        socket,
        socketExplicit: read.socketGiven !== undefined,
        tmuxConfig,
        selection: { toolsets: read.toolsets, tools: read.tools, excludeTools: read.excludeTools },
        suppressHistory: yield* read.suppressHistory,
        waitMaxSeconds: yield* read.waitMaxSeconds,
        tmuxBin,
        transport: yield* read.transport,
        auditLog: yield* read.auditLog,
        ...((record) => record === undefined ? {} : { record })(yield* read.record),
        adopt: yield* read.adopt,
        lease: yield* read.lease,
        watchSsh: yield* parseWatchSsh(read.watchSsh, read.watchSshConfig),
        linkTimeoutSeconds: yield* read.linkTimeout,
        ...(hosts === undefined ? {} : { hosts, selectionGiven })
      }
      return { kind: "serve", config } as const
    }))
  })
