/**
 * The `watch_command` of a timed-out run: one shell command line that runs `libtmux-mcp wait` for
 * the run (src/wait.ts), for an agent's host to run in its own background runner. Built only from
 * what this server knows for sure: the absolute paths of its entry and tmux, the socket's resolved
 * path, and pattern-checked IDs. Security: a word holding a backslash or a control character is
 * refused (no line then), so one quoting serves sh, bash, zsh, dash and fish (domain/quote.ts).
 * On a host the agent reaches by ssh (`LIBTMUX_WATCH_SSH`, which `--print-config --ssh` passes),
 * this server cannot know the agent's ssh command: it is told, and the line is that ssh command
 * with the `wait` line as its remote command, quoted once for the remote shell and again for the
 * agent's (the inner quoting holds no backslash, so the outer one serves every shell too).
 */
import { isPaneId } from "./ids.ts"
import { runIdPattern } from "./protocolNames.ts"
import { remoteShellProblem, remoteShellQuote } from "./quote.ts"
import { sshArgs, type SshReach } from "./ssh.ts"

/** What the line is made of. @category models */
export interface WatchParts {
  /** The words that run this installation's entry: Node and the bin, or the single executable. */
  readonly entry: ReadonlyArray<string>
  readonly tmuxPath: string
  readonly socketPath: string
  readonly runId: string
  readonly paneId: string
  /** How the agent's machine reaches this one, when it runs this server through ssh. */
  readonly ssh?: SshReach | undefined
}

/** The command line, or `undefined` when a part cannot be quoted alike for every common shell. */
export const watchCommandLine = (parts: WatchParts): string | undefined => {
  if (!runIdPattern.test(parts.runId) || !isPaneId(parts.paneId)) return undefined
  const paths = [...parts.entry, parts.tmuxPath, parts.socketPath]
  if (parts.entry.length === 0 || paths.some((path) => !path.startsWith("/"))) return undefined
  const words = [
    ...parts.entry,
    "wait",
    parts.runId,
    "--pane",
    parts.paneId,
    "--socket",
    `path:${parts.socketPath}`,
    "--tmux-bin",
    parts.tmuxPath
  ]
  return parts.ssh === undefined ? quoted(words) : throughSsh(parts.ssh, words)
}

/** The words quoted for every common shell, or `undefined` when one cannot be. */
const quoted = (all: ReadonlyArray<string>) =>
  all.some((word) => remoteShellProblem(word) !== undefined) ? undefined : all.map(remoteShellQuote).join(" ")

/** `words` run on the host `ssh` reaches: quoted for the host's shell, then as one word for the agent's. */
const throughSsh = (ssh: SshReach, words: ReadonlyArray<string>) => {
  const remote = quoted(words)
  return remote === undefined ? undefined : quoted(["ssh", ...sshArgs(ssh), remote])
}

/**
 * A hub's `watch_command` for a run on one of its hosts, built from the hub's own host table (how
 * ssh reaches the host, the words that start the server there) and pattern-checked IDs. Security:
 * never from a line the host composed, which the agent's machine would run. Run through ssh as
 * the host's server is, `wait` takes the same socket and tmux by default (LIBTMUX_SOCKET, PATH).
 */
export const hostWatchCommandLine = (parts: {
  readonly ssh: SshReach
  readonly entry: ReadonlyArray<string>
  readonly runId: string
  readonly paneId: string
}): string | undefined =>
  !runIdPattern.test(parts.runId) || !isPaneId(parts.paneId) || parts.entry.length === 0
    ? undefined
    : throughSsh(parts.ssh, [...parts.entry, "wait", parts.runId, "--pane", parts.paneId])
