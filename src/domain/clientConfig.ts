/**
 * Ready-to-paste client configurations for this checkout: absolute paths to the running Node and
 * to this package's bin, so they work before (and without) any npm publication.
 */
import { remoteShellQuote, shellQuote } from "./quote.ts"

/** The clients `--print-config` knows, with where their configuration lives (said on stderr). */
export const clients = {
  "claude-code": "run this command (add --scope user to use it in every project)",
  "claude-desktop": "merge into claude_desktop_config.json (Linux: ~/.config/Claude/claude_desktop_config.json)",
  "codex": "merge into ~/.codex/config.toml",
  "gemini": "merge into ~/.gemini/settings.json (or .gemini/settings.json in a project)",
  "cursor": "merge into ~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
  "vscode": "merge into .vscode/mcp.json (or the user mcp.json: MCP: Open User Configuration)"
} as const
/** @category models */
export type ClientName = keyof typeof clients

/** Whether a string names a known client. */
export const isClient = (name: string): name is ClientName => Object.hasOwn(clients, name)

const tomlString = (value: string): string => JSON.stringify(value)

/**
 * What to tell the person on stderr beside the configuration: where it goes, and the traps of the
 * printed values.
 */
export const clientConfigNotes = (
  client: ClientName,
  node: string,
  inheritedSocket: string | undefined,
  host?: SshHost
): Array<string> => [
  `libtmux-mcp: ${clients[client]}`,
  ...(host === undefined ? [] : [
    `libtmux-mcp: the entry starts the server on ${host.destination} through ssh (no password prompt: use a key ` +
    `or agent); the remote needs Node >= 22.19 and this package (${host.command.join(" ")})`,
    `libtmux-mcp: to watch there: ssh -t ${
      host.port === undefined ? "" : `-p ${host.port} `
    }${host.destination} tmux -S <socket> attach (the remote server prints the exact command on its stderr)`
  ]),
  ...(inheritedSocket === undefined ? [] : [
    `libtmux-mcp: --socket inherit became path:${inheritedSocket}, the tmux server this shell runs in: ` +
    "clients do not pass TMUX to the servers they start, so inherit would reach the default socket instead"
  ]),
  ...(host === undefined && /[\\/]\.cache[\\/]|[\\/]_npx[\\/]/u.test(node) ?
    [
      `libtmux-mcp: the Node path ${node} is in a cache folder: cleaning that cache removes ` +
      "it and the client can no longer start the server; prefer a Node installed for good"
    ] :
    [])
]

/** A host the entry starts the server on through ssh. @category models */
export interface SshHost {
  readonly destination: string
  readonly port: number | undefined
  readonly sshConfig: string | undefined
  readonly command: ReadonlyArray<string>
}

/**
 * The ssh command line that starts the server on `host`: no TTY (stdin and stdout carry JSON-RPC),
 * batch mode (a password prompt would hang the client), keep-alives (a dead link ends the session,
 * and with it the remote server), and the settings in the remote command's environment. ssh hands
 * the remote command to the host's login shell, whatever it is: every word is quoted so that sh,
 * bash, zsh, dash and fish read the same words (the values were checked by `remoteShellProblem`).
 */
export const sshCommand = (
  host: SshHost,
  env: Readonly<Record<string, string>>
): { readonly command: string; readonly args: Array<string> } => {
  const settings = Object.entries(env).map(([key, value]) => remoteShellQuote(`${key}=${value}`))
  const remote = [...(settings.length === 0 ? [] : ["env", ...settings]), ...host.command.map(remoteShellQuote)]
    .join(" ")
  return {
    command: "ssh",
    args: [
      "-T",
      "-o",
      "BatchMode=yes",
      "-o",
      "ServerAliveInterval=15",
      "-o",
      "ServerAliveCountMax=3",
      ...(host.sshConfig === undefined ? [] : ["-F", host.sshConfig]),
      ...(host.port === undefined ? [] : ["-p", String(host.port)]),
      "--",
      host.destination,
      remote
    ]
  }
}

/** The configuration text for one client (stdout: nothing else, so it can be piped). */
export const renderClientConfig = (
  client: ClientName,
  node: string,
  bin: string,
  settings: Readonly<Record<string, string>>,
  host?: SshHost
): string => {
  // One entry per host: the client's server names keep the hosts apart.
  const name = host === undefined ? "libtmux-mcp" : `libtmux-mcp-${host.destination.replace(/^.*@/u, "")}`
  const ssh = host === undefined ? undefined : sshCommand(host, settings)
  const env = ssh === undefined ? settings : {}
  const entry = {
    command: ssh?.command ?? node,
    args: ssh?.args ?? [bin],
    ...(Object.keys(env).length === 0 ? {} : { env })
  }
  switch (client) {
    case "claude-code":
      return [
        [
          "claude mcp add",
          name,
          ...Object.entries(env).map(([key, value]) => `-e ${shellQuote(`${key}=${value}`)}`),
          "--",
          shellQuote(entry.command),
          ...entry.args.map(shellQuote)
        ].join(" ")
      ].join("\n")
    case "codex":
      return [
        `[mcp_servers.${name}]`,
        `command = ${tomlString(entry.command)}`,
        `args = [${entry.args.map(tomlString).join(", ")}]`,
        ...(Object.keys(env).length === 0
          ? []
          : [`env = { ${Object.entries(env).map(([key, value]) => `${key} = ${tomlString(value)}`).join(", ")} }`])
      ].join("\n")
    case "vscode":
      return JSON.stringify({ servers: { [name]: { type: "stdio", ...entry } } }, null, 2)
    default:
      return JSON.stringify({ mcpServers: { [name]: entry } }, null, 2)
  }
}
