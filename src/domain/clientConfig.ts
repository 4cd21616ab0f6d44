/**
 * Ready-to-paste client configurations for this checkout: absolute paths to the running Node and
 * to this package's bin, so they work before (and without) any npm publication.
 */
import { shellQuote } from "./quote.ts"

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
export const clientConfigNotes = (client: ClientName, node: string, inheritedSocket: string | undefined): Array<string> => [
  `libtmux-mcp: ${clients[client]}`,
  ...(inheritedSocket === undefined ? [] : [
    `libtmux-mcp: --socket inherit became path:${inheritedSocket}, the tmux server this shell runs in: clients do not pass TMUX to the servers they start, so inherit would reach the default socket instead`
  ]),
  ...(/[\\/]\.cache[\\/]|[\\/]_npx[\\/]/u.test(node) ? [
    `libtmux-mcp: the Node path ${node} is in a cache folder: cleaning that cache removes it and the client can no longer start the server; prefer a Node installed for good`
  ] : [])
]

/** The configuration text for one client (stdout: nothing else, so it can be piped). */
export const renderClientConfig = (
  client: ClientName,
  node: string,
  bin: string,
  env: Readonly<Record<string, string>>
): string => {
  const name = "libtmux-mcp"
  const entry = { command: node, args: [bin], ...(Object.keys(env).length === 0 ? {} : { env }) }
  switch (client) {
    case "claude-code":
      return [
        ["claude mcp add", name, ...Object.entries(env).map(([key, value]) => `-e ${shellQuote(`${key}=${value}`)}`), "--", shellQuote(node), shellQuote(bin)].join(" ")
      ].join("\n")
    case "codex":
      return [
        `[mcp_servers.${name}]`,
        `command = ${tomlString(node)}`,
        `args = [${tomlString(bin)}]`,
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
