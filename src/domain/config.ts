/**
 * Startup configuration: environment variables, each mirrored by a CLI flag (a flag beats its
 * variable). Parsing is pure; every error names the valid set, and nothing here touches tmux.
 */
import * as Result from "effect/Result"
import { type ClientName, clients, isClient } from "./clientConfig.ts"
import { remoteShellProblem } from "./quote.ts"
import { parseToolsets, type SelectionInput } from "./selection.ts"
import { defaultSocket, parseSocketSelector, type SocketSelector } from "./socket.ts"
import { settingInvalid, type StartupError } from "./StartupError.ts"

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
}

/** What the command line asked for. @category models */
export type Invocation =
  | { readonly kind: "help" }
  | { readonly kind: "version" }
  | {
    readonly kind: "print-config"
    readonly client: ClientName
    readonly env: Readonly<Record<string, string>>
    /** The socket `inherit` was turned into, when the command ran inside tmux. */
    readonly inheritedSocket: string | undefined
    /** The host the entry starts the server on, through ssh. */
    readonly remote: RemoteHost | undefined
  }
  | { readonly kind: "serve"; readonly config: ServerConfig }

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
    help: "ceiling for waits, 1-120 (default 30)"
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
  }
] as const

type Variable = typeof settings[number]["variable"]
type Values = Partial<Record<Variable, string>>

const flagNames = settings.map((setting) => setting.flag)

/** Flags that shape only what `--print-config` prints: the remote host an entry starts the server on. */
const remoteFlags = ["--ssh", "--ssh-config", "--remote-node", "--remote-bin"] as const
type RemoteFlag = typeof remoteFlags[number]

interface Cli {
  readonly values: Values
  readonly help: boolean
  readonly version: boolean
  readonly printConfig: string | undefined
  readonly remote: Partial<Record<RemoteFlag, string>>
}

/** Reads flags; a flag's value follows it or an `=`. */
const parseArgv = (argv: ReadonlyArray<string>): Result.Result<Cli, StartupError> => {
  const values: Values = {}
  let help = false
  let version = false
  let printConfig: string | undefined
  const remote: Partial<Record<RemoteFlag, string>> = {}
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const eq = arg.indexOf("=")
    const flag = eq === -1 ? arg : arg.slice(0, eq)
    if (arg === "--help" || arg === "-h") help = true
    else if (arg === "--version" || arg === "-V") version = true
    else if (flag === "--print-config") {
      if (eq === -1 && i + 1 >= argv.length) {
        return Result.fail(
          settingInvalid("--print-config", `--print-config needs a client: ${Object.keys(clients).join(", ")}`)
        )
      }
      printConfig = eq === -1 ? argv[++i]! : arg.slice(eq + 1)
    } else if ((remoteFlags as ReadonlyArray<string>).includes(flag)) {
      if (eq === -1 && i + 1 >= argv.length) return Result.fail(settingInvalid(flag, `${flag} needs a value`))
      remote[flag as RemoteFlag] = eq === -1 ? argv[++i]! : arg.slice(eq + 1)
    } else {
      const setting = settings.find((candidate) => candidate.flag === flag)
      if (setting === undefined) {
        return Result.fail(
          settingInvalid(
            arg,
            `unknown argument ${JSON.stringify(arg)}; valid flags: ${flagNames.join(", ")}, --print-config (with ${
              remoteFlags.join(", ")
            }), --help, --version`
          )
        )
      }
      if (eq === -1 && i + 1 >= argv.length) {
        return Result.fail(settingInvalid(flag, `${flag} needs a value (${setting.help})`))
      }
      values[setting.variable] = eq === -1 ? argv[++i]! : arg.slice(eq + 1)
    }
  }
  if (printConfig === undefined && Object.keys(remote).length > 0) {
    const flag = Object.keys(remote)[0]!
    return Result.fail(
      settingInvalid(flag, `${flag} goes with --print-config: it shapes the client entry printed, not this server`)
    )
  }
  return Result.succeed({ values, help, version, printConfig, remote })
}

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

const parseWaitMax = (raw: string | undefined): Result.Result<number, StartupError> => {
  if (raw === undefined) return Result.succeed(30)
  const value = raw.trim() === "" ? Number.NaN : Number(raw)
  return Number.isFinite(value) && value >= 1 && value <= 120
    ? Result.succeed(value)
    : Result.fail(
      settingInvalid(
        "LIBTMUX_MCP_WAIT_MAX_SECONDS",
        `LIBTMUX_MCP_WAIT_MAX_SECONDS ${JSON.stringify(raw)} is not valid; use a number of seconds from 1 to 120`
      )
    )
}

/** `--print-config <client>`: the flags given beside it, checked, become the snippet's env block. */
/** Where `--ssh` says to start the server. @category models */
export interface RemoteHost {
  /** `[user@]host`, as ssh takes it. */
  readonly destination: string
  readonly port: number | undefined
  readonly sshConfig: string | undefined
  /** The remote command: the installed `libtmux-mcp` by default, or Node with a checkout's bin. */
  readonly command: ReadonlyArray<string>
}

// A user and host as ssh and a remote shell take them, with nothing a shell or ssh would read as more.
const sshTarget = /^(?:([A-Za-z0-9._][A-Za-z0-9._-]*)@)?([A-Za-z0-9._][A-Za-z0-9._-]*)(?::(\d{1,5}))?$/u

/**
 * A word for the remote command line: a path or name that every common login shell reads as the
 * same word once quoted (no backslash, no control characters), and that no program takes for an
 * option.
 */
const remoteWord = (flag: string, raw: string, local = false): Result.Result<string, StartupError> => {
  // --ssh-config stays on this host: ssh takes it as an argument, not through a remote shell.
  const problem = raw === ""
    ? "it is empty"
    : raw.startsWith("-")
    ? "it starts with -"
    : local
    // oxlint-disable-next-line no-control-regex -- control characters are what it refuses
    ? (/[\u0000-\u001f\u007f]/u.test(raw) ? "a control character" : undefined)
    : remoteShellProblem(raw)
  return problem === undefined ? Result.succeed(raw) : Result.fail(
    settingInvalid(
      flag,
      `${flag} ${JSON.stringify(raw)} is not valid: ${problem}; give a path (or a command name on the remote ` +
        "PATH) without backslashes or control characters"
    )
  )
}

const parseRemote = (
  remote: Partial<Record<RemoteFlag, string>>,
  defaults: { readonly node: string; readonly bin: string }
): Result.Result<RemoteHost | undefined, StartupError> =>
  Result.gen(function*() {
    const raw = remote["--ssh"]
    if (raw === undefined) {
      const stray = Object.keys(remote)[0]
      return stray === undefined
        ? undefined
        : yield* Result.fail(settingInvalid(stray, `${stray} goes with --ssh [user@]host[:port]`))
    }
    const match = sshTarget.exec(raw)
    const port = match?.[3] === undefined ? undefined : Number(match[3])
    if (match === null || (port !== undefined && (port < 1 || port > 65_535))) {
      return yield* Result.fail(
        settingInvalid(
          "--ssh",
          `--ssh ${
            JSON.stringify(raw)
          } is not valid; use [user@]host[:port] (letters, digits, . _ -; a host alias from your ssh config works too)`
        )
      )
    }
    const sshConfig = remote["--ssh-config"] === undefined
      ? undefined
      : yield* remoteWord("--ssh-config", remote["--ssh-config"], true)
    const bin = remote["--remote-bin"] === undefined
      ? undefined
      : yield* remoteWord("--remote-bin", remote["--remote-bin"])
    const node = remote["--remote-node"] === undefined
      ? undefined
      : yield* remoteWord("--remote-node", remote["--remote-node"])
    return {
      destination: match[1] === undefined ? match[2]! : `${match[1]}@${match[2]}`,
      port,
      sshConfig,
      // The installed bin runs itself; a checkout's bin is a file for Node to run.
      command: bin === undefined && node === undefined ? [defaults.bin] : [node ?? defaults.node, bin ?? defaults.bin]
    }
  })

const printConfigInvocation = (
  client: string,
  values: Values,
  tmux: string | undefined,
  remote: Partial<Record<RemoteFlag, string>>
): Result.Result<Invocation, StartupError> =>
  Result.gen(function*() {
    if (!isClient(client)) {
      return yield* Result.fail(
        settingInvalid(
          "--print-config",
          `--print-config ${JSON.stringify(client)} is not a known client; valid clients: ${
            Object.keys(clients).join(", ")
          }`
        )
      )
    }
    if (values.LIBTMUX_SOCKET !== undefined) yield* parseSocketSelector(values.LIBTMUX_SOCKET)
    if (values.LIBTMUX_TOOLSETS !== undefined) yield* parseToolsets(values.LIBTMUX_TOOLSETS)
    const env = Object.fromEntries(
      Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined)
    )
    const host = yield* parseRemote(remote, { node: "node", bin: "libtmux-mcp" })
    if (host !== undefined) {
      // Security: the settings travel inside the remote command, which the host's login shell reads.
      for (const [variable, value] of Object.entries(env)) {
        const problem = remoteShellProblem(value)
        if (problem !== undefined) {
          return yield* Result.fail(
            settingInvalid(
              variable,
              `${variable} ${JSON.stringify(value)} cannot go through ssh: it holds ${problem}; ` +
                "give a value without backslashes or control characters"
            )
          )
        }
      }
    }
    if (host !== undefined && env.LIBTMUX_SOCKET === "inherit") {
      return yield* Result.fail(
        settingInvalid(
          "--socket",
          "--socket inherit cannot cross ssh: the remote server gets no TMUX; " +
            "name the socket there (name:NAME or path:/PATH), or keep the default"
        )
      )
    }
    // A client starts the server without TMUX: inherit there would reach the default socket.
    const inheritedSocket = env.LIBTMUX_SOCKET === "inherit" && tmux !== undefined && tmux !== ""
      ? tmux.split(",")[0]
      : undefined
    if (inheritedSocket !== undefined) env.LIBTMUX_SOCKET = `path:${inheritedSocket}`
    return { kind: "print-config", client, env, inheritedSocket, remote: host } as const
  })

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

/** Parses the environment and the command line. */
export const parseInvocation = (
  env: Readonly<Record<string, string | undefined>>,
  argv: ReadonlyArray<string>
): Result.Result<Invocation, StartupError> =>
  Result.gen(function*() {
    const cli = yield* parseArgv(argv)
    if (cli.help) return { kind: "help" } as const
    if (cli.version) return { kind: "version" } as const
    if (cli.printConfig !== undefined) {
      return yield* printConfigInvocation(cli.printConfig, cli.values, env.TMUX, cli.remote)
    }
    for (const [variable, message] of retiredVariables) {
      const retired = env[variable]
      if (retired !== undefined) {
        return yield* Result.fail(settingInvalid(variable, message(retired)))
      }
    }
    const value = (variable: Variable): string | undefined => cli.values[variable] ?? env[variable]
    const socketRaw = value("LIBTMUX_SOCKET")
    const socket = socketRaw === undefined ? defaultSocket : yield* parseSocketSelector(socketRaw)
    const tmuxConfigRaw = value("LIBTMUX_TMUX_CONFIG")
    const tmuxConfig = tmuxConfigRaw === undefined
      ? { kind: "minimal" as const }
      : yield* parseTmuxConfig(tmuxConfigRaw)
    if (socket.form === "inherit" && tmuxConfigRaw !== undefined) {
      return yield* Result.fail(settingInvalid(
        "LIBTMUX_TMUX_CONFIG",
        "LIBTMUX_TMUX_CONFIG applies only to a server this process starts on a name: or path: socket; " +
          "with LIBTMUX_SOCKET=inherit tmux's own selection and configuration apply, so unset LIBTMUX_TMUX_CONFIG"
      ))
    }
    const tmuxBin = value("LIBTMUX_TMUX_BIN") ?? "tmux"
    if (tmuxBin === "") {
      return yield* Result.fail(
        settingInvalid("LIBTMUX_TMUX_BIN", "LIBTMUX_TMUX_BIN is empty; name a tmux binary or omit it")
      )
    }
    const config: ServerConfig = {
      socket,
      socketExplicit: socketRaw !== undefined,
      tmuxConfig,
      selection: {
        toolsets: value("LIBTMUX_TOOLSETS"),
        tools: value("LIBTMUX_TOOLS"),
        excludeTools: value("LIBTMUX_EXCLUDE_TOOLS")
      },
      suppressHistory: yield* parseSuppressHistory(value("LIBTMUX_SUPPRESS_HISTORY")),
      waitMaxSeconds: yield* parseWaitMax(value("LIBTMUX_MCP_WAIT_MAX_SECONDS")),
      tmuxBin,
      auditLog: yield* parseAuditLog(value("LIBTMUX_AUDIT_LOG")),
      adopt: yield* oneOf("LIBTMUX_ADOPT", value("LIBTMUX_ADOPT"), ["adopt", "refuse"] as const),
      lease: yield* oneOf("LIBTMUX_LEASE", value("LIBTMUX_LEASE"), ["shared", "exclusive"] as const)
    }
    return { kind: "serve", config } as const
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
    `  ${"".padEnd(20)} using this Node and this checkout; setting flags given beside it go into its env block`,
    `  ${"  --ssh".padEnd(20)} [user@]host[:port]: the entry starts the server on that host through ssh`,
    `  ${"  --ssh-config".padEnd(20)} <file>: the ssh client configuration file to use (ssh -F)`,
    `  ${"  --remote-node".padEnd(20)} <path>: Node on the host (default: node, with --remote-bin)`,
    `  ${"  --remote-bin".padEnd(20)} <path>: this package's bin on the host (default: libtmux-mcp on the remote PATH)`,
    `  ${"--help".padEnd(20)} print this help`,
    `  ${"--version".padEnd(20)} print the version`,
    "",
    "Execute tools run commands with your user's permissions. Tool selection shapes the advertised",
    "interface; it is not an operating-system sandbox."
  ].join("\n")
