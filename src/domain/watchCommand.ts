/**
 * The `watch_command` of a timed-out run: one shell command line that runs `libtmux-mcp wait` for
 * the run (src/wait.ts), for an agent's host to run in its own background runner. Built only from
 * what this server knows for sure: the absolute paths of its entry and tmux, the socket's resolved
 * path, and pattern-checked IDs. Security: a word holding a backslash or a control character is
 * refused (no line then), so one quoting serves sh, bash, zsh, dash and fish (domain/quote.ts).
 */
import { isPaneId } from "./ids.ts"
import { runIdPattern } from "./protocolNames.ts"
import { remoteShellProblem, remoteShellQuote } from "./quote.ts"

/** What the line is made of. @category models */
export interface WatchParts {
  /** The words that run this installation's entry: Node and the bin, or the single executable. */
  readonly entry: ReadonlyArray<string>
  readonly tmuxPath: string
  readonly socketPath: string
  readonly runId: string
  readonly paneId: string
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
  return words.some((word) => remoteShellProblem(word) !== undefined)
    ? undefined
    : words.map(remoteShellQuote).join(" ")
}
