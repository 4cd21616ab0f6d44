/** The `--help` text: every setting's flag and variable, the entry's flags, and `wait`. */
import { clients } from "./clientConfig.ts"
import { settings } from "./settings.ts"
import { waitCodeLines } from "./waitOutcome.ts"

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
