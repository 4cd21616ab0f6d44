/**
 * The settings: each environment variable with its flag and one line of help, in the order
 * `--help` prints them, and how a variable's text is read from a settings source.
 */
import * as Config from "effect/Config"
import * as Option from "effect/Option"
import { settingInvalid, type StartupError } from "./StartupError.ts"

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
    variable: "LIBTMUX_TRANSPORT",
    flag: "--transport",
    help: "auto (default), control or spawn: auto keeps one tmux control-mode connection on a name: socket " +
      "(not name:default) and forks a tmux client per command on an inherit or path: socket; control asks for " +
      "the connection on any socket, spawn never makes one"
  },
  {
    variable: "LIBTMUX_AUDIT_LOG",
    flag: "--audit-log",
    help: "absolute path of a regular file of yours to append audit " +
      "records to, created or set to mode 0600 (default: stderr)"
  },
  {
    variable: "LIBTMUX_RECORD",
    flag: "--record",
    help: "absolute path of a folder of yours (created mode 0700 when absent; no access for others) to record " +
      "every pane the tools touch in, as asciicast v3 files of mode 0600 (default: no recording)"
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

export type Variable = typeof settings[number]["variable"]
export type Values = Partial<Record<Variable, string>>

export const flagNames = settings.map((setting) => setting.flag)

/** A variable's text from the source; undefined when it is not set (an empty value is set). */
export const textOf = (name: string): Config.Config<string | undefined> =>
  Config.String(name).pipe(Config.option, Config.map(Option.getOrUndefined))

/** A source that could not be read (a host's provider that failed) stops startup, saying why. */
export const unreadable = (error: Config.ConfigError): StartupError =>
  settingInvalid("configuration", `the configuration could not be read: ${error.message}`)
