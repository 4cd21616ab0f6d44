/**
 * Startup configuration: environment variables, each mirrored by a CLI flag (a flag beats its
 * variable), read as Config values and checked by pure rules; every error names the valid set, and
 * nothing here touches tmux.
 */
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import { resolve } from "node:path"
import { clients } from "./clientConfig.ts"
import { type HostTable, parseHostTable } from "./hosts.ts"
import { isPaneId, type PaneId } from "./ids.ts"
import {
  type PrintConfig,
  type PrintConfigFlag,
  printConfigFlags,
  printConfigInvocation,
  type PrintedHub
} from "./printConfig.ts"
import { runIdPattern } from "./protocolNames.ts"
import type { SelectionInput } from "./selection.ts"
import { defaultSocket, parseSocketSelector, type SocketSelector } from "./socket.ts"
import { parseWatchSsh, type SshReach } from "./ssh.ts"
import { settingInvalid, type StartupError } from "./StartupError.ts"
import { unknownVariableWarnings } from "./unknownVariables.ts"
import { parseWaitMax } from "./waitCeiling.ts"
import { waitCodeLines } from "./waitOutcome.ts"

/** Configuration for a tmux server this process starts. @category models */
export type TmuxConfigChoice =
  | { readonly kind: "minimal" }
  | { readonly kind: "user" }
  | { readonly kind: "path"; readonly path: string }

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
  /** Where audit records go: a file path, or stderr when undefined. */
  readonly auditLog: string | undefined
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

/** `libtmux-mcp wait RUN_ID --pane %N`: wait for a run from outside the server (src/wait.ts). @category models */
export interface WaitRequest {
  readonly kind: "wait"
  readonly runId: string
  readonly paneId: PaneId
  readonly socket: SocketSelector
  readonly tmuxBin: string
  /** How long to wait at most, in seconds; undefined waits until the run ends. */
  readonly timeoutSeconds: number | undefined
}

/** The variables, their flags and one line of help each, in the order `--help` prints them. */
export const settings = [
  {
    variable: "LIBTMUX_SOCKET",
    flag: "--socket",
    help: "name:<name>, a bare name, inherit, or path:/abs/socket (default name:libtmux-mcp)"
  },
  {
    variable: "LIBTMUX_TMUX_CONFIG",
    flag: "--tmux-config",
    help: "minimal (default), user, or an absolute path: configuration of a tmux server this process starts"
  },
  {
    variable: "LIBTMUX_TOOLSETS",
    flag: "--toolsets",
    help: "comma list of inspect, manage, execute, teardown; empty selects none (default depends on the endpoint)"
  },
  { variable: "LIBTMUX_TOOLS", flag: "--tools", help: "comma list of tool names to add" },
  {
    variable: "LIBTMUX_EXCLUDE_TOOLS",
    flag: "--exclude-tools",
    help: "comma list of tool names to remove; beats every inclusion"
  },
  {
    variable: "LIBTMUX_SUPPRESS_HISTORY",
    flag: "--suppress-history",
    help: "1 (default) or 0: keep run_shell_command's commands out of shell history"
  },
  {
    variable: "LIBTMUX_MCP_WAIT_MAX_SECONDS",
    flag: "--wait-max-seconds",
    help: "ceiling for waits, 1-110 (default 30)"
  },
  { variable: "LIBTMUX_TMUX_BIN", flag: "--tmux-bin", help: "tmux binary (default tmux)" },
  {
    variable: "LIBTMUX_AUDIT_LOG",
    flag: "--audit-log",
    help: "absolute path of a regular file of yours to append audit " +
      "records to, created or set to mode 0600 (default: stderr)"
  },
  {
    variable: "LIBTMUX_ADOPT",
    flag: "--adopt",
    help: "adopt (default) or refuse: what to do with a tmux server already on the socket whose provenance is unknown"
  },
  {
    variable: "LIBTMUX_LEASE",
    flag: "--lease",
    help: "shared (default) or exclusive: whether a second instance on the same socket may start"
  },
  {
    variable: "LIBTMUX_WATCH_SSH",
    flag: "--watch-ssh",
    help: "[user@]host[:port]: how the agent's machine reaches this one by ssh; watch_command then runs " +
      "wait through ssh (--print-config --ssh sets it)"
  },
  {
    variable: "LIBTMUX_WATCH_SSH_CONFIG",
    flag: "--watch-ssh-config",
    help: "absolute path of the agent machine's ssh client configuration file (ssh -F), with --watch-ssh"
  },
  {
    variable: "LIBTMUX_HOSTS",
    flag: "--host",
    help: "NAME=[user@]host[:port], repeatable (the variable: a comma list): be a hub forwarding calls over " +
      "ssh -T to this server on each host"
  },
  {
    variable: "LIBTMUX_HOST_TOOLSETS",
    flag: "--host-toolsets",
    help: "NAME=TOOLSET[,TOOLSET], repeatable (the variable: one comma list, prod=inspect,gpu=inspect,execute): " +
      "with --host, host NAME offers only the hub's tools of those toolsets"
  },
  {
    variable: "LIBTMUX_LINK_TIMEOUT",
    flag: "--link-timeout",
    help: "seconds (3-3600, default 45 on a hub) a link to a host may stay silent before it counts as dead: a " +
      "hub's ssh keep-alives and pings run every third of it, and it passes it to each host's server, which " +
      "then exits as on EOF after that long without a message from the hub (its runs are kept for resume)"
  }
] as const

type Variable = typeof settings[number]["variable"]
type Values = Partial<Record<Variable, string>>

const flagNames = settings.map((setting) => setting.flag)

interface Cli {
  readonly values: Values
  readonly help: boolean
  readonly version: boolean
  readonly printConfig: string | undefined
  readonly entry: Partial<Record<PrintConfigFlag, string>>
  readonly noLocal: boolean
  readonly remoteNode: ReadonlyArray<string>
  readonly remoteBin: ReadonlyArray<string>
}

/** Entry flags that also shape a hub's hosts (each repeatable there, as `[NAME=]PATH`). */
const hubFlags: ReadonlyArray<string> = ["--ssh-config", "--remote-node", "--remote-bin"]

/** Reads flags; a flag's value follows it or an `=`. */
const parseArgv = (argv: ReadonlyArray<string>): Result.Result<Cli, StartupError> => {
  const values: Values = {}
  let help = false
  let version = false
  let printConfig: string | undefined
  const entry: Partial<Record<PrintConfigFlag, string>> = {}
  let noLocal = false
  const remoteNode: Array<string> = []
  const remoteBin: Array<string> = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const eq = arg.indexOf("=")
    const flag = eq === -1 ? arg : arg.slice(0, eq)
    if (arg === "--help" || arg === "-h") help = true
    else if (arg === "--version" || arg === "-V" || arg === "-v") version = true
    else if (arg === "--no-local") noLocal = true
    else if (flag === "--print-config") {
      if (eq === -1 && i + 1 >= argv.length) {
        return Result.fail(
          settingInvalid("--print-config", `--print-config needs a client: ${Object.keys(clients).join(", ")}`)
        )
      }
      printConfig = eq === -1 ? argv[++i]! : arg.slice(eq + 1)
    } else if ((printConfigFlags as ReadonlyArray<string>).includes(flag)) {
      if (eq === -1 && i + 1 >= argv.length) return Result.fail(settingInvalid(flag, `${flag} needs a value`))
      const value = eq === -1 ? argv[++i]! : arg.slice(eq + 1)
      entry[flag as PrintConfigFlag] = value
      if (flag === "--remote-node") remoteNode.push(value)
      if (flag === "--remote-bin") remoteBin.push(value)
    } else {
      const setting = settings.find((candidate) => candidate.flag === flag)
      if (setting === undefined) {
        return Result.fail(
          settingInvalid(
            arg,
            `unknown argument ${JSON.stringify(arg)}; valid flags: ${flagNames.join(", ")}, --print-config (with ${
              printConfigFlags.join(", ")
            }), --no-local, --help, --version`
          )
        )
      }
      if (eq === -1 && i + 1 >= argv.length) {
        return Result.fail(settingInvalid(flag, `${flag} needs a value (${setting.help})`))
      }
      const value = eq === -1 ? argv[++i]! : arg.slice(eq + 1)
      // --host and --host-toolsets repeat: their variables are the comma lists.
      const before = values[setting.variable]
      values[setting.variable] = (setting.flag === "--host" || setting.flag === "--host-toolsets") &&
          before !== undefined
        ? `${before},${value}`
        : value
    }
  }
  const entryOnly = Object.keys(entry).filter((flag) => !hubFlags.includes(flag))
  if (printConfig === undefined && entryOnly.length > 0) {
    const flag = entryOnly[0]!
    return Result.fail(
      settingInvalid(flag, `${flag} goes with --print-config: it shapes the client entry printed, not this server`)
    )
  }
  return Result.succeed({ values, help, version, printConfig, entry, noLocal, remoteNode, remoteBin })
}

/**
 * `--print-config` with `--host`: the hub's table, checked as serving checks it, and the flags of
 * the entry's command line (those with a variable go into its env block with the other settings).
 */
const printedHub = (cli: Cli, cwd: string): Result.Result<PrintedHub | undefined, StartupError> =>
  Result.map(
    // Without --host, the flags that only a hub takes are refused as serving refuses them; the
    // others (--ssh-config, --remote-node, --remote-bin) belong to --ssh then.
    parseHostTable(
      cli.values.LIBTMUX_HOSTS === undefined
        ? {
          hosts: [],
          noLocal: cli.noLocal,
          remoteNode: [],
          remoteBin: [],
          sshConfig: undefined,
          hostToolsets: cli.values.LIBTMUX_HOST_TOOLSETS
        }
        : {
          hosts: cli.values.LIBTMUX_HOSTS.split(","),
          noLocal: cli.noLocal,
          remoteNode: cli.remoteNode,
          remoteBin: cli.remoteBin,
          sshConfig: cli.entry["--ssh-config"],
          hostToolsets: cli.values.LIBTMUX_HOST_TOOLSETS
        },
      (path) => resolve(cwd, path)
    ),
    (table) =>
      table === undefined ? undefined : {
        table,
        args: [
          ...(cli.noLocal ? ["--no-local"] : []),
          ...cli.remoteNode.flatMap((value) => ["--remote-node", value]),
          ...cli.remoteBin.flatMap((value) => ["--remote-bin", value]),
          ...(table.sshConfig === undefined ? [] : ["--ssh-config", table.sshConfig])
        ]
      }
  )

/** An absolute path tmux and the filesystem can take (no NUL byte). */
const isAbsolutePath = (raw: string): boolean => raw.startsWith("/") && !raw.includes("\0")

const parseTmuxConfig = (raw: string): Result.Result<TmuxConfigChoice, StartupError> => {
  if (raw === "minimal" || raw === "user") return Result.succeed({ kind: raw })
  return isAbsolutePath(raw)
    ? Result.succeed({ kind: "path", path: raw })
    : Result.fail(
      settingInvalid(
        "LIBTMUX_TMUX_CONFIG",
        `LIBTMUX_TMUX_CONFIG ${
          JSON.stringify(raw)
        } is not valid; use minimal, user, or an absolute path to a tmux configuration file`
      )
    )
}

const parseTmuxBin = (raw: string | undefined): Result.Result<string, StartupError> =>
  raw === undefined
    ? Result.succeed("tmux")
    : raw === ""
    ? Result.fail(settingInvalid("LIBTMUX_TMUX_BIN", "LIBTMUX_TMUX_BIN is empty; name a tmux binary or omit it"))
    : Result.succeed(raw)

const parseSuppressHistory = (raw: string | undefined): Result.Result<boolean, StartupError> =>
  raw === undefined || raw === "1"
    ? Result.succeed(true)
    : raw === "0"
    ? Result.succeed(false)
    : Result.fail(
      settingInvalid(
        "LIBTMUX_SUPPRESS_HISTORY",
        `LIBTMUX_SUPPRESS_HISTORY ${JSON.stringify(raw)} is not valid; use 1 (suppress, the default) or 0`
      )
    )

/** A setting from a closed set; the first value is the default. */
const oneOf = <const V extends ReadonlyArray<string>>(
  variable: string,
  raw: string | undefined,
  values: V
): Result.Result<V[number], StartupError> =>
  raw === undefined
    ? Result.succeed(values[0]!)
    : values.includes(raw)
    ? Result.succeed(raw)
    : Result.fail(
      settingInvalid(variable, `${variable} ${JSON.stringify(raw)} is not valid; use ${values.join(" or ")}`)
    )

const parseAuditLog = (raw: string | undefined): Result.Result<string | undefined, StartupError> =>
  raw === undefined || isAbsolutePath(raw)
    ? Result.succeed(raw)
    : Result.fail(
      settingInvalid(
        "LIBTMUX_AUDIT_LOG",
        `LIBTMUX_AUDIT_LOG ${JSON.stringify(raw)} is not valid; give an absolute file path, or omit it for stderr`
      )
    )

const parseLinkTimeout = (raw: string | undefined): Result.Result<number | undefined, StartupError> =>
  raw === undefined || (/^[0-9]{1,4}$/u.test(raw) && Number(raw) >= 3 && Number(raw) <= 3600)
    ? Result.succeed(raw === undefined ? undefined : Number(raw))
    : Result.fail(
      settingInvalid(
        "LIBTMUX_LINK_TIMEOUT",
        `LIBTMUX_LINK_TIMEOUT ${JSON.stringify(raw.slice(0, 40))} is not valid; use whole seconds from 3 to 3600`
      )
    )

/**
 * The predecessor's variables (MIGRATION.md), each with its replacement. Setting one, even empty,
 * stops startup: ignoring it would run on another socket or surface than the one asked for.
 */
export const retiredVariables: ReadonlyArray<readonly [string, (value: string) => string]> = [
  ["LIBTMUX_SAFETY", () =>
    "LIBTMUX_SAFETY is no longer read; select toolsets with LIBTMUX_TOOLSETS instead: " +
    "readonly -> inspect, mutating -> inspect,manage,execute, destructive -> inspect,manage,execute,teardown"],
  [
    "LIBTMUX_SOCKET_PATH",
    (value) =>
      `LIBTMUX_SOCKET_PATH is no longer read; use LIBTMUX_SOCKET=path:${
        isAbsolutePath(value) ? value : "/absolute/socket"
      } instead and unset LIBTMUX_SOCKET_PATH`
  ],
  [
    "LIBTMUX_MCP_PROMPTS_AS_TOOLS",
    () =>
      "LIBTMUX_MCP_PROMPTS_AS_TOOLS is no longer read: prompts were removed (pane " +
      "content flows through tools), so there is nothing to replace it; unset it"
  ]
]

/** Startup warnings for the `LIBTMUX_*` variables in `env` that nothing reads, each naming the nearest one. */
export const unknownSettingWarnings = (env: Readonly<Record<string, string | undefined>>): Array<string> =>
  unknownVariableWarnings(
    env,
    [...settings.map((setting) => setting.variable), ...retiredVariables.map(([variable]) => variable)],
    settings.map((setting) => setting.variable)
  )

/** A variable's text from the source; undefined when it is not set (an empty value is set). */
const textOf = (name: string): Config.Config<string | undefined> =>
  Config.String(name).pipe(Config.option, Config.map(Option.getOrUndefined))

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
  auditLog: setting("LIBTMUX_AUDIT_LOG", parseAuditLog),
  adopt: setting("LIBTMUX_ADOPT", (raw) => oneOf("LIBTMUX_ADOPT", raw, ["adopt", "refuse"] as const)),
  lease: setting("LIBTMUX_LEASE", (raw) => oneOf("LIBTMUX_LEASE", raw, ["shared", "exclusive"] as const)),
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

/** A source that could not be read (a host's provider that failed) stops startup, saying why. */
const unreadable = (error: Config.ConfigError): StartupError =>
  settingInvalid("configuration", `the configuration could not be read: ${error.message}`)

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
        auditLog: yield* read.auditLog,
        adopt: yield* read.adopt,
        lease: yield* read.lease,
        watchSsh: yield* parseWatchSsh(read.watchSsh, read.watchSshConfig),
        linkTimeoutSeconds: yield* read.linkTimeout,
        ...(hosts === undefined ? {} : { hosts, selectionGiven })
      }
      return { kind: "serve", config } as const
    }))
  })

/** The longest `--timeout` of `wait`, in seconds: a day. */
const waitTimeoutLimit = 86_400

const waitUsage = "usage: libtmux-mcp wait RUN_ID --pane %N [--socket SOCKET] [--timeout SECONDS] [--tmux-bin BIN]"

/** The `wait` subcommand's arguments; the socket and the tmux binary default to the server's settings. */
const parseWait = (
  source: ConfigProvider.ConfigProvider,
  argv: ReadonlyArray<string>
): Effect.Effect<Invocation, StartupError> =>
  Effect.gen(function*() {
    const given: Partial<Record<"--pane" | "--socket" | "--timeout" | "--tmux-bin", string>> = {}
    const ids: Array<string> = []
    const refuse = (detail: string) => Effect.fail(settingInvalid("wait", `wait: ${detail}; ${waitUsage}`))
    for (let i = 0; i < argv.length; i++) {
      const arg = argv[i]!
      if (arg === "--help" || arg === "-h") return { kind: "help" } as const
      const eq = arg.indexOf("=")
      const flag = eq === -1 ? arg : arg.slice(0, eq)
      if (flag === "--pane" || flag === "--socket" || flag === "--timeout" || flag === "--tmux-bin") {
        if (eq === -1 && i + 1 >= argv.length) return yield* refuse(`${flag} needs a value`)
        given[flag] = eq === -1 ? argv[++i]! : arg.slice(eq + 1)
      } else if (arg.startsWith("-")) {
        return yield* refuse(`unknown argument ${JSON.stringify(arg)}`)
      } else {
        ids.push(arg)
      }
    }
    if (ids.length !== 1) return yield* refuse(ids.length === 0 ? "give the run's ID" : "give one run ID")
    const runId = ids[0]!
    if (!runIdPattern.test(runId)) {
      return yield* refuse(`${JSON.stringify(runId.slice(0, 40))} is not a run ID (six hex digits, as run_id gives)`)
    }
    const paneId = given["--pane"]
    if (paneId === undefined) return yield* refuse("--pane is required (the pane_id the run was typed in)")
    if (!isPaneId(paneId)) return yield* refuse(`--pane ${JSON.stringify(paneId.slice(0, 40))} is not a pane ID (%N)`)
    const timeout = given["--timeout"]
    const seconds = timeout === undefined ? undefined : Number(timeout)
    if (
      timeout !== undefined &&
      (!/^[0-9]{1,6}(\.[0-9]{1,3})?$/u.test(timeout) || seconds! <= 0 || seconds! > waitTimeoutLimit)
    ) {
      return yield* refuse(
        `--timeout ${JSON.stringify(timeout.slice(0, 40))} is not a number of seconds in (0, ${waitTimeoutLimit}]`
      )
    }
    const env = yield* Effect.mapError(
      Config.all({ socket: textOf("LIBTMUX_SOCKET"), tmuxBin: textOf("LIBTMUX_TMUX_BIN") }).parse(source),
      unreadable
    )
    const socketText = given["--socket"] ?? env.socket
    const socket = socketText === undefined ? defaultSocket : yield* Effect.fromResult(parseSocketSelector(socketText))
    const tmuxBin = yield* Effect.fromResult(parseTmuxBin(given["--tmux-bin"] ?? env.tmuxBin))
    return { kind: "wait", runId, paneId, socket, tmuxBin, timeoutSeconds: seconds } as const
  })

/** The `--help` text. */
export const helpText = (version: string): string =>
  [
    `libtmux-mcp ${version}: an MCP server (stdio) that gives an agent a tmux terminal on its own tmux socket.`,
    "",
    "Usage: libtmux-mcp [flags]",
    "",
    "Each flag mirrors an environment variable; a flag beats its variable.",
    ...settings.map((setting) => `  ${setting.flag.padEnd(20)} ${setting.variable}: ${setting.help}`),
    `  ${"--print-config".padEnd(20)} <client>: print a configuration for ${Object.keys(clients).join(", ")}`,
    `  ${"".padEnd(20)} that runs this installation (this Node and bin, or this executable); setting flags`,
    `  ${"".padEnd(20)} given beside it go into its env block`,
    `  ${"  --name".padEnd(20)} <name>: the entry's name (letters, digits, - and _; default libtmux-mcp[-host])`,
    `  ${"  --node".padEnd(20)} <path>: the Node the entry runs (default: this one), checked to run and be >= 22.19`,
    `  ${"  --ssh".padEnd(20)} [user@]host[:port]: the entry starts the server on that host through ssh`,
    `  ${"  --ssh-config".padEnd(20)} <file>: the ssh client configuration file to use (ssh -F)`,
    `  ${"  --remote-node".padEnd(20)} <path>: Node on the host (default: node, with --remote-bin)`,
    `  ${"  --remote-bin".padEnd(20)} <path>: this package's bin on the host (default: libtmux-mcp on the remote PATH)`,
    `  ${
      "  --remote-binary".padEnd(20)
    } <path>: the single executable on the host (npm run build:binary), run without Node`,
    `  ${"  --host ...".padEnd(20)} with the hub's flags below: the entry runs the hub; the checks to run for each`,
    `  ${"".padEnd(20)} host (ssh, its Node, its server's version) go to stderr`,
    `  ${"--no-local".padEnd(20)} with --host: this machine is not a host (the first --host is the default)`,
    `  ${"--remote-node".padEnd(20)} [NAME=]PATH with --host: Node on the hosts (or on host NAME)`,
    `  ${"--remote-bin".padEnd(20)} [NAME=]PATH with --host: this package's bin on the hosts (or on host NAME)`,
    `  ${"--ssh-config".padEnd(20)} <file> with --host: the ssh client configuration file (ssh -F)`,
    `  ${"--help".padEnd(20)} print this help`,
    `  ${"--version, -V, -v".padEnd(20)} print the version`,
    "",
    "Usage: libtmux-mcp wait RUN_ID --pane %N [--socket SOCKET] [--timeout SECONDS] [--tmux-bin BIN]",
    "",
    "Waits, without an MCP server, until a run_shell_command run ends, a program of it holds the keyboard,",
    "or its pane or tmux server goes; prints one line and exits with its code. It types nothing, collects",
    "nothing and never starts tmux: call resume afterwards for the output. The socket and the tmux binary",
    "default to LIBTMUX_SOCKET and LIBTMUX_TMUX_BIN, as for the server. Exit codes:",
    ...waitCodeLines.map(([code, text]) => `  ${String(code).padEnd(20)} ${text}`),
    "",
    "Execute tools run commands with your user's permissions. Tool selection shapes the advertised",
    "interface; it is not an operating-system sandbox."
  ].join("\n")
