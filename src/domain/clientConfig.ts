/**
 * Ready-to-paste client configurations for this checkout: absolute paths to the running Node and
 * to this package's bin, so they work before (and without) any npm publication.
 */
import { shellQuote } from "./quote.ts"

/** The clients `--print-config` knows, with where their configuration lives. */
export const clients = {
  "claude-code": "run this command (add --scope user to use it in every project)",
  "claude-desktop": "merge into claude_desktop_config.json",
  "codex": "merge into ~/.codex/config.toml",
  "gemini": "merge into ~/.gemini/settings.json (or .gemini/settings.json in a project)",
  "cursor": "merge into ~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
  "vscode": "merge into .vscode/mcp.json"
} as const
/** @category models */
export type ClientName = keyof typeof clients

/** Whether a string names a known client. */
export const isClient = (name: string): name is ClientName => Object.hasOwn(clients, name)

const tomlString = (value: string): string => JSON.stringify(value)

/** The configuration text for one client. */
export const renderClientConfig = (
  client: ClientName,
  node: string,
  bin: string,
  env: Readonly<Record<string, string>>
): string => {
  const name = "libtmux-mcp"
  const entry = { command: node, args: [bin], ...(Object.keys(env).length === 0 ? {} : { env }) }
  const comment = (prefix: string) => `${prefix} ${clients[client]}`
  switch (client) {
    case "claude-code":
      return [
        comment("#"),
        ["claude mcp add", name, ...Object.entries(env).map(([key, value]) => `-e ${shellQuote(`${key}=${value}`)}`), "--", shellQuote(node), shellQuote(bin)].join(" ")
      ].join("\n")
    case "codex":
      return [
        comment("#"),
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
