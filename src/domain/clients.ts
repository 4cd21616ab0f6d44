/**
 * The MCP clients `--print-config` knows (printConfig.ts parses the name, clientConfig.ts renders
 * the entry): apart from both, so neither imports the other.
 */

/** The clients `--print-config` knows, with where their configuration lives (said on stderr). */
export const clients = {
  "claude-code": "run this command; for every project, put --scope user right after `claude mcp add` " +
    "(after -- it would reach the server as an argument)",
  "claude-desktop": "merge into claude_desktop_config.json (Linux: ~/.config/Claude/claude_desktop_config.json; " +
    "macOS: ~/Library/Application Support/Claude/claude_desktop_config.json; " +
    "Windows: %APPDATA%\\Claude\\claude_desktop_config.json)",
  "codex": "merge into ~/.codex/config.toml",
  "gemini": "merge into ~/.gemini/settings.json (or .gemini/settings.json in a project)",
  "cursor": "merge into ~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
  "vscode": "merge into .vscode/mcp.json (or the user mcp.json: MCP: Open User Configuration)"
} as const
/** @category models */
export type ClientName = keyof typeof clients

/** Whether a string names a known client. */
export const isClient = (name: string): name is ClientName => Object.hasOwn(clients, name)
