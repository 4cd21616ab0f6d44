/**
 * `--print-config <client>`: the flags given beside it, checked, become the entry's env block; the
 * flags below shape the entry itself (its name, the Node it runs, the host it starts the server on).
 */
import * as Result from "effect/Result"
import { isAbsolute, resolve } from "node:path"
import { type ClientName, clients, isClient } from "./clients.ts"
import type { HostTable } from "./hosts.ts"
import { pathWord } from "./pathWord.ts"
import { remoteShellProblem } from "./quote.ts"
import { parseToolsets } from "./selection.ts"
import { choices, oneOf } from "./settingRules.ts"
import { inheritedPath, parseSocketSelector } from "./socket.ts"
import { parseSshTarget, parseWatchSsh } from "./ssh.ts"
import { settingInvalid, type StartupError } from "./StartupError.ts"
import { parseWaitMax } from "./waitCeiling.ts"

/** Flags that shape only the entry that `--print-config` prints; the last five, the remote host. */
export const printConfigFlags = [
  "--name",
  "--node",
  "--ssh",
  "--ssh-config",
  "--remote-node",
  "--remote-bin",
  "--remote-binary"
] as const
/** One of the flags above. @category models */
export type PrintConfigFlag = typeof printConfigFlags[number]
const remoteFlags: ReadonlyArray<PrintConfigFlag> = ["--ssh-config", "--remote-node", "--remote-bin", "--remote-binary"]

/** Where `--ssh` says to start the server. @category models */
export interface RemoteHost {
  /** `[user@]host`, as ssh takes it. */
  readonly destination: string
  readonly port: number | undefined
  /** An absolute path: the client starts ssh from a folder nobody chose. */
  readonly sshConfig: string | undefined
  /**
   * The remote command: the installed `libtmux-mcp` by default, Node with a checkout's bin, or the
   * single executable.
   */
  readonly command: ReadonlyArray<string>
  /** Whether the command is the single executable (`--remote-binary`), which needs no Node there. */
  readonly binary: boolean
}

/** What `--print-config` prints, decided. @category models */
export interface PrintConfig {
  readonly kind: "print-config"
  readonly client: ClientName
  /** The entry's name: letters, digits, `-` and `_`, which every client takes. */
  readonly name: string
  readonly env: Readonly<Record<string, string>>
  /** The socket `inherit` was turned into, when the command ran inside tmux. */
  readonly inheritedSocket: string | undefined
  /** The host the entry starts the server on, through ssh. */
  readonly remote: RemoteHost | undefined
  /** `--node`, absolute: the Node the entry runs instead of this one (checked before printing). */
  readonly node: string | undefined
  /** The wait ceiling the entry's server will have, for a client's per-call timeout. */
  readonly waitMaxSeconds: number
  /** With `--host`: the entry runs a hub of these hosts; `args` are its flags that have no variable. */
  readonly hub?: PrintedHub
}

/** The hub an entry runs: its host table, checked as the server checks it, and its flag-only settings. */
export interface PrintedHub {
  readonly table: HostTable
  /** `--no-local`, `--remote-node`, `--remote-bin`, `--ssh-config`, as given (the config file made absolute). */
  readonly args: ReadonlyArray<string>
}

// Claude Code takes letters, digits, - and _; a TOML bare key the same; JSON keys anything.
const entryNameShape = /^[A-Za-z0-9_-]{1,64}$/u

/** The default name: one entry per host (and port), with every other character made a `-`. */
export const defaultEntryName = (host: RemoteHost | undefined): string =>
  host === undefined
    ? "libtmux-mcp"
    : `libtmux-mcp-${host.destination.replace(/^.*@/u, "")}${host.port === undefined ? "" : `-${host.port}`}`
      .replace(/[^A-Za-z0-9_-]/gu, "-")

const parseRemote = (
  flags: Partial<Record<PrintConfigFlag, string>>,
  cwd: string
): Result.Result<RemoteHost | undefined, StartupError> =>
  Result.gen(function*() {
    const raw = flags["--ssh"]
    if (raw === undefined) {
      const stray = remoteFlags.find((flag) => flags[flag] !== undefined)
      return stray === undefined
        ? undefined
        : yield* Result.fail(settingInvalid(stray, `${stray} goes with --ssh [user@]host[:port]`))
    }
    const target = parseSshTarget(raw)
    if (target === undefined) {
      return yield* Result.fail(
        settingInvalid(
          "--ssh",
          `--ssh ${
            JSON.stringify(raw)
          } is not valid; use [user@]host[:port] (letters, digits, . _ -; a host alias from your ssh config works too)`
        )
      )
    }
    const sshConfig = flags["--ssh-config"] === undefined
      ? undefined
      : yield* pathWord("--ssh-config", flags["--ssh-config"], false)
    const bin = flags["--remote-bin"] === undefined ? undefined : yield* pathWord("--remote-bin", flags["--remote-bin"])
    const node = flags["--remote-node"] === undefined
      ? undefined
      : yield* pathWord("--remote-node", flags["--remote-node"])
    const binary = flags["--remote-binary"] === undefined
      ? undefined
      : yield* pathWord("--remote-binary", flags["--remote-binary"])
    if (binary !== undefined && (bin !== undefined || node !== undefined)) {
      const other = bin === undefined ? "--remote-node" : "--remote-bin"
      return yield* Result.fail(
        settingInvalid(
          "--remote-binary",
          `--remote-binary names the single executable, which runs without Node; leave out ${other}`
        )
      )
    }
    return {
      ...target,
      // ssh reads a relative -F against the folder it starts in, which the client chooses.
      sshConfig: sshConfig === undefined || isAbsolute(sshConfig) || sshConfig.startsWith("~")
        ? sshConfig
        : resolve(cwd, sshConfig),
      // The installed bin and the single executable run themselves; a checkout's bin is a file for Node to run.
      command: binary !== undefined
        ? [binary]
        : bin === undefined && node === undefined
        ? ["libtmux-mcp"]
        : [node ?? "node", bin ?? "libtmux-mcp"],
      binary: binary !== undefined
    }
  })

/** With `--host` the entry runs a hub: the flags that start one host's server from the entry do not go with it. */
const refuseSingleHostFlags = (flags: Partial<Record<PrintConfigFlag, string>>): Result.Result<void, StartupError> =>
  Result.gen(function*() {
    // The hub starts each host's server itself; the entry runs the hub here.
    const alone = (["--ssh", "--remote-binary"] as const).find((flag) => flags[flag] !== undefined)
    if (alone !== undefined) {
      return yield* Result.fail(
        settingInvalid(
          alone,
          `${alone} goes with one host (the entry starts the server there); with --host the entry runs a hub ` +
            "that starts this server on each host (--remote-node, --remote-bin [NAME=]PATH name it there)"
        )
      )
    }
  })

/** The settings of an entry that starts its server through ssh: each must survive the trip. */
const checkRemoteEnv = (env: Readonly<Record<string, string>>): Result.Result<void, StartupError> =>
  Result.gen(function*() {
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
    if (env.LIBTMUX_SOCKET === "inherit") {
      return yield* Result.fail(
        settingInvalid(
          "--socket",
          "--socket inherit cannot cross ssh: the remote server gets no TMUX; " +
            "name the socket there (name:NAME or path:/PATH), or keep the default"
        )
      )
    }
  })

/** The entry's name: `--name`, or one per host; refused unless every client takes it. */
const entryNameOf = (
  flags: Partial<Record<PrintConfigFlag, string>>,
  host: RemoteHost | undefined
): Result.Result<string, StartupError> =>
  Result.gen(function*() {
    const name = flags["--name"] ?? defaultEntryName(host)
    if (!entryNameShape.test(name)) {
      return yield* Result.fail(
        settingInvalid(
          "--name",
          `--name ${JSON.stringify(name)} is not valid; use 1 to 64 letters, digits, - and _ (what every client takes)`
        )
      )
    }
    return name
  })

/** `--node`, made absolute: a Node on this machine, so not for an entry that starts its server through ssh. */
const localNodeOf = (
  flags: Partial<Record<PrintConfigFlag, string>>,
  host: RemoteHost | undefined,
  cwd: string
): Result.Result<string | undefined, StartupError> =>
  Result.gen(function*() {
    if (host !== undefined && flags["--node"] !== undefined) {
      return yield* Result.fail(
        settingInvalid("--node", "--node names a Node on this machine; with --ssh, give the remote one: --remote-node")
      )
    }
    return flags["--node"] === undefined
      ? undefined
      : resolve(cwd, yield* pathWord("--node", flags["--node"], false))
  })

/** Decides `--print-config <client>` from the setting flags and the entry flags given beside it. */
export const printConfigInvocation = (
  client: string,
  values: Readonly<Record<string, string | undefined>>,
  tmux: string | undefined,
  flags: Partial<Record<PrintConfigFlag, string>>,
  cwd: string,
  hub?: PrintedHub
): Result.Result<PrintConfig, StartupError> =>
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
    // An entry the server would refuse at startup is refused here, naming the valid values.
    for (const [variable, valid] of Object.entries(choices)) yield* oneOf(variable, values[variable], valid)
    const waitMaxSeconds = yield* parseWaitMax(values.LIBTMUX_MCP_WAIT_MAX_SECONDS)
    const env = Object.fromEntries(
      Object.entries(values).filter((entry): entry is [string, string] => entry[1] !== undefined)
    )
    if (hub !== undefined) yield* refuseSingleHostFlags(flags)
    const host = hub === undefined ? yield* parseRemote(flags, cwd) : undefined
    if (host !== undefined) {
      // The remote server cannot see how this machine reaches it: its watch_command needs to be told.
      env.LIBTMUX_WATCH_SSH ??= flags["--ssh"]!
      if (host.sshConfig !== undefined) env.LIBTMUX_WATCH_SSH_CONFIG ??= host.sshConfig
    }
    yield* parseWatchSsh(env.LIBTMUX_WATCH_SSH, env.LIBTMUX_WATCH_SSH_CONFIG)
    if (host !== undefined) yield* checkRemoteEnv(env)
    const name = yield* entryNameOf(flags, host)
    const node = yield* localNodeOf(flags, host, cwd)
    // A client starts the server without TMUX: inherit there would reach the default socket.
    const inheritedSocket = env.LIBTMUX_SOCKET === "inherit" ? inheritedPath(tmux) : undefined
    if (inheritedSocket !== undefined) env.LIBTMUX_SOCKET = `path:${inheritedSocket}`
    return {
      kind: "print-config",
      client,
      name,
      env,
      inheritedSocket,
      remote: host,
      node,
      waitMaxSeconds,
      ...(hub === undefined ? {} : { hub })
    } as const
  })
