/**
 * Ready-to-paste client configurations for this installation: absolute paths to the running Node and
 * to this package's bin (or to the single executable), so they work before (and without) any npm
 * publication.
 */
import * as Result from "effect/Result"
import { stringify as stringifyToml } from "smol-toml"
import { version } from "../version.ts"
import { clients } from "./clients.ts"
import { hostNames, type HostTable, type RemoteHostEntry } from "./hosts.ts"
import { nodeFloor } from "./nodeFloor.ts"
import type { PrintConfig } from "./printConfig.ts"
import { remoteShellQuote, shellQuote } from "./quote.ts"
import { defaultSocket, parseSocketSelector, socketFlags } from "./socket.ts"
import { sshArgs, type SshLink, type SshReach } from "./ssh.ts"

export { type ClientName, clients, isClient } from "./clients.ts"

/** Codex's per-call timeout (`tool_timeout_sec`, default 60 s): the wait ceiling and room for the rest. */
export const codexToolTimeout = (waitMaxSeconds: number): number => Math.max(60, Math.ceil(waitMaxSeconds) + 30)

/** A Node path in a folder that a cache clean removes (npm's, npx's; scripts/node24.sh's before 0.3.0). */
const inCacheFolder = (node: string): boolean => /[\\/]\.cache[\\/]|[\\/]_npx[\\/]/u.test(node)

/** The command that checks the Node on the remote host (the executable itself, for the single executable). */
const remoteNodeCheck = (host: SshHost & { readonly binary: boolean }): string =>
  [
    "ssh",
    ...(host.sshConfig === undefined ? [] : ["-F", shellQuote(host.sshConfig)]),
    ...(host.port === undefined ? [] : ["-p", String(host.port)]),
    host.destination,
    shellQuote(host.binary || host.command.length > 1 ? host.command[0]! : "node"),
    "--version"
  ].join(" ")

/**
 * What to tell the person on stderr beside the configuration: where it goes, and the traps of the
 * printed values. `executable`: `node` is the single executable, put where its user chose.
 */
export const clientConfigNotes = (config: PrintConfig, node: string, executable = false): Array<string> => {
  const host = config.remote
  return [
    `libtmux-mcp: ${clients[config.client]}`,
    ...(host === undefined ? [] : [
      `libtmux-mcp: the entry starts the server on ${host.destination} through ssh (no password prompt: use a key ` +
      "or agent); the remote needs " +
      (host.binary
        ? `the single executable at ${host.command[0]} (no Node)`
        : host.command.length === 1
        ? `${host.command[0]} on its PATH: this package with Node >= ${nodeFloor}, or the single executable`
        : `Node >= ${nodeFloor} and this package (${host.command.join(" ")})`),
      `libtmux-mcp: to check the remote ${host.binary ? "executable" : "Node"}: ${remoteNodeCheck(host)}`,
      `libtmux-mcp: to watch there once the agent has a session: ${watchCommand(host, config.env.LIBTMUX_SOCKET)}`
    ]),
    ...(config.hub === undefined ? [] : hubNotes(config.hub.table)),
    ...(config.inheritedSocket === undefined ? [] : [
      `libtmux-mcp: --socket inherit became path:${config.inheritedSocket}, the tmux server this shell runs in: ` +
      "clients do not pass TMUX to the servers they start, so inherit would reach the default socket instead" +
      (config.name === "libtmux-mcp" ? "; give it its own entry name with --name (say --name tmux-live)" : "")
    ]),
    // Still inherit: this command saw no tmux server in TMUX, and the client passes none.
    ...(config.env.LIBTMUX_SOCKET === "inherit" ?
      [
        "libtmux-mcp: the entry keeps LIBTMUX_SOCKET=inherit, but this command ran outside tmux (no socket in TMUX) " +
        "and clients do not pass TMUX to the servers they start, so its server will use tmux's default socket " +
        "(the one `tmux` reaches with no -L or -S), not the server of a terminal you sit in; run this command " +
        "inside that tmux (inherit then becomes its path:), or name one: --socket path:/PATH or name:NAME"
      ] :
      []),
    ...(host === undefined && !executable && inCacheFolder(node) ?
      [
        `libtmux-mcp: the Node path ${node} is in a cache folder: cleaning that cache removes ` +
        "it and the client can no longer start the server; prefer a Node installed for good: name it with " +
        "--node PATH, or run this command with it"
      ] :
      [])
  ]
}

/**
 * A command line for a person's shell that runs `words` on the host as the hub reaches it: the
 * hub's own ssh arguments (sshCommand), each quoted for this shell.
 */
const onHost = (table: HostTable, host: RemoteHostEntry, words: ReadonlyArray<string>): string => {
  const ssh = sshCommand(
    { destination: host.destination, port: host.port, sshConfig: table.sshConfig, command: words },
    {}
  )
  return [ssh.command, ...ssh.args].map(shellQuote).join(" ")
}

/** The checks to run from here for each host of a hub: ssh gets through, the host's Node, its server's version. */
export const hubNotes = (table: HostTable): Array<string> => [
  `libtmux-mcp: the entry runs a hub of ${hostNames(table).join(", ")}${
    table.local ? " (local is this machine)" : ""
  }; each remote host needs ssh without a prompt (a key or an agent), and Node >= ${nodeFloor} with this ` +
  "package or the single executable there. To check each host from here (each line should succeed):",
  ...table.remotes.flatMap((host) => [
    `libtmux-mcp: ${host.name} reachable: ${
      ["ssh", ...sshArgs({ destination: host.destination, port: host.port, sshConfig: table.sshConfig }), "true"]
        .map(shellQuote).join(" ")
    }`,
    // The installed bin runs the Node on the host's PATH; a checkout's bin, the Node named with it.
    `libtmux-mcp: ${host.name} Node (>= ${nodeFloor}): ${
      onHost(table, host, [host.command.length > 1 ? host.command[0]! : "node", "--version"])
    }`,
    `libtmux-mcp: ${host.name} server (this hub is ${version}): ${onHost(table, host, [...host.command, "--version"])}`
  ])
]

/**
 * The command that attaches, from here, to the socket the remote server pins: by name, tmux on the
 * host resolves it as the server did (both run under ssh, with the same environment).
 */
export const watchCommand = (host: SshHost, socket: string | undefined): string => {
  const selector = Result.getOrElse(parseSocketSelector(socket ?? "name:libtmux-mcp"), () => defaultSocket)
  return [
    "ssh -t",
    ...(host.sshConfig === undefined ? [] : ["-F", shellQuote(host.sshConfig)]),
    ...(host.port === undefined ? [] : ["-p", String(host.port)]),
    host.destination,
    "tmux -N",
    ...socketFlags(selector).map((word) => shellQuote(shellQuote(word))),
    "attach"
  ].join(" ")
}

/** A host the entry starts the server on through ssh. @category models */
export interface SshHost extends SshReach {
  readonly command: ReadonlyArray<string>
}

/**
 * The ssh command line that starts the server on `host`: no TTY (stdin and stdout carry JSON-RPC),
 * batch mode (a password prompt would hang the client), keep-alives (a dead link ends the session,
 * and with it the remote server), and the settings in the remote command's environment, every word
 * quoted for the remote POSIX shell.
 */
export const sshCommand = (
  host: SshHost,
  env: Readonly<Record<string, string>>,
  link?: SshLink
): { readonly command: string; readonly args: Array<string> } => {
  // ssh hands the remote command to the host's login shell, whatever it is: every word is quoted so
  // that sh, bash, zsh, dash and fish read the same words (the values were checked by
  // `remoteShellProblem`).
  const settings = Object.entries(env).map(([key, value]) => remoteShellQuote(`${key}=${value}`))
  const remote = [...(settings.length === 0 ? [] : ["env", ...settings]), ...host.command.map(remoteShellQuote)]
    .join(" ")
  return {
    command: "ssh",
    args: [...sshArgs(host, link), remote]
  }
}

/**
 * The configuration text for one client (stdout: nothing else, so it can be piped). With no `bin`,
 * `node` is the single executable, which runs itself.
 */
export const renderClientConfig = (config: PrintConfig, node: string, bin: string | undefined): string => {
  const { name, remote: host } = config
  const ssh = host === undefined ? undefined : sshCommand(host, config.env)
  const env = ssh === undefined ? config.env : {}
  const entry = {
    command: ssh?.command ?? node,
    args: ssh?.args ?? [...(bin === undefined ? [] : [bin]), ...(config.hub?.args ?? [])],
    ...(Object.keys(env).length === 0 ? {} : { env })
  }
  switch (config.client) {
    case "claude-code":
      return [
        "claude mcp add",
        name,
        ...Object.entries(env).map(([key, value]) => `-e ${shellQuote(`${key}=${value}`)}`),
        "--",
        shellQuote(entry.command),
        ...entry.args.map(shellQuote)
      ].join(" ")
    case "codex":
      return stringifyToml({
        mcp_servers: {
          [name]: {
            ...entry,
            // Codex ends a call after 60 s by default; a wait may run to the ceiling.
            tool_timeout_sec: codexToolTimeout(config.waitMaxSeconds)
          }
        }
      }).trimEnd()
    case "vscode":
      return JSON.stringify({ servers: { [name]: { type: "stdio", ...entry } } }, null, 2)
    default:
      return JSON.stringify({ mcpServers: { [name]: entry } }, null, 2)
  }
}
