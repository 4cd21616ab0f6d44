/**
 * The completion protocol of run_shell_command, as pure functions: which shells it can drive, the
 * text it types and what it reads of the shell's state. The templates its trailer runs are in
 * domain/runTemplates.ts; where the output starts and ends, and cutting it out of the pane's rows,
 * in domain/runPositions.ts.
 *
 * What is typed (POSIX shells; fish uses `begin; … end;` and `$status`), for run R in pane %5:
 *
 *     ( <the command, as given>
 *     ); { command /usr/bin/tmux run -t%5 -C "#{@lR}$?'";} 2>/dev/null
 *
 * With in_shell the command runs in the shell itself, in a brace group (`{ … };`), after a start
 * mark, and its trailer also leaves `$-` on the pane (`paneRunOptions.shellFlags`); a later subshell run on
 * a shell with `set -e` on is guarded (`set +e`, then `set -e` in the subshell and after the trailer).
 *
 * The trailer runs the template the server stored in the pane option `@lR` before typing, with the
 * exit status (`$?`, no shell variable is assigned) appended: release the claim and signal the
 * run's channel, then record where the output ended and the status, which closes the template's
 * last argument. tmux runs that list without another client's commands in between. While no
 * template is stored, what the trailer hands tmux does not parse, and nothing is recorded.
 *
 * The protocol's own commands run in a group whose standard error goes to /dev/null (`{ …;}
 * 2>/dev/null`), so a shell with xtrace on (`set -x`) traces them there, not into the output; the
 * shell's options are not touched. A shell known to have verbose on (`set -v`, see
 * `paneRunOptions.shellFlags`) echoes what it reads after the echo: its runs mark their start.
 *
 * The socket comes from the shell's own `TMUX` (so no socket path is typed) when the shell's
 * environment names the pinned socket; otherwise the path is typed.
 *
 * The output starts where the echo of the typed input ends: the first row, at or after the prompt
 * row seen at readiness, that completes the echo of the trailer line, which carries the run's own
 * ID. Text the command prints comes after the echo, so it cannot move the start. Shells that do not
 * edit their own input line (the dash family) print their continuation prompts after the echo, so
 * for them a start mark records the position instead.
 */
import { cellWidth, dropCells, sliceCells } from "./cells.ts"
import { paneRunOptions, protocolNames } from "./protocolNames.ts"
import { shellQuote } from "./quote.ts"

/** The shell families the protocol speaks. @category models */
export type ShellKind = "posix" | "fish"

const posixShells = new Set(["sh", "bash", "dash", "zsh", "ksh", "ksh93", "mksh", "ash", "yash", "busybox"])

/** The family of a shell by its command name, or `undefined` when the protocol cannot drive it. */
export const shellKind = (command: string): ShellKind | undefined =>
  posixShells.has(command) ? "posix" : command === "fish" ? "fish" : undefined

/** The shells the protocol drives, for error messages. */
export const supportedShells = "bash, zsh, dash/sh, ksh, mksh, ash, yash, fish"

/**
 * The options an in-shell run sets on its pane so that an `exit` leaves it (dead) long enough to
 * read the shell's status, and what restores them: unset, so the window's values apply again.
 */
export const keepPaneCommands = (paneId: string) => ({
  set: [
    ["set-option", "-p", "-t", paneId, "remain-on-exit", "on"],
    ["set-option", "-p", "-t", paneId, "remain-on-exit-format", ""]
  ] as const,
  restore: [
    ["set-option", "-pu", "-t", paneId, "remain-on-exit"],
    ["set-option", "-pu", "-t", paneId, "remain-on-exit-format"]
  ] as const
})

/**
 * Whether the command marks where its output starts. Shells that edit their own input line echo
 * the typed lines in order, so the echo's end is the output's start, unless the echo is taller
 * than the pane (line editors then redraw only part of it). Others (dash and other line-buffered
 * shells) let the terminal echo everything typed at once and print their continuation prompts
 * afterwards, so for them the command always marks where its output starts.
 */
export const needsStartMark = (
  shell: string,
  command: string,
  pane: { readonly width: number; readonly height: number }
): boolean => {
  if (!lineEditors.includes(shell)) return true
  let rows = 0
  // The prompt and the protocol's words take at most about a line's worth more.
  for (const line of command.split("\n")) rows += Math.ceil((textCells(line) + 1) / Math.max(1, pane.width))
  return rows + 3 >= pane.height
}

const lineEditors = ["bash", "zsh", "fish"]

const textCells = (text: string): number => {
  let cells = 0
  for (const char of text) cells += char === "\t" ? 8 : cellWidth(char)
  return cells
}

/**
 * The longest line, in bytes, that a shell reading its terminal line by line (no line editor) can
 * take: the terminal keeps at most 4095 bytes of a line and drops the rest.
 */
export const terminalLineLimit = 4_000

/** A line of the command that a shell without a line editor would receive cut short, if any. */
export const lineTooLong = (shell: string, command: string): number | undefined => {
  if (lineEditors.includes(shell)) return undefined
  const index = command.split("\n").findIndex((line) => Buffer.byteLength(line) > terminalLineLimit)
  return index === -1 ? undefined : index + 1
}

/** What the command may not contain: control characters other than newline and tab. */
export const commandProblem = (command: string): string | undefined => {
  if (command.trim() === "") return "must not be empty"
  // oxlint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/u.test(command)) {
    return "must not contain control characters other than newline and tab"
  }
  return undefined
}

/** How the trailer reaches the pinned tmux server. @category models */
export interface TmuxReach {
  /** The absolute path of the tmux binary the server runs. */
  readonly bin: string
  /** The pinned socket's path. */
  readonly socketPath: string
  /** Whether the shell's environment has a `TMUX` that names the pinned socket. */
  readonly shellKnowsSocket: boolean
}

const fishQuote = (word: string): string =>
  /^[A-Za-z0-9_@%+=:,./-]+$/u.test(word) ? word : `'${word.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`

/**
 * The tmux client the typed text runs: the server's own binary by its path (not an alias or another
 * tmux on the shell's PATH), through `command` (posix shells and fish), so that a shell function,
 * even one named by that path, does not run instead; with the socket.
 */
const tmuxWord = (kind: ShellKind, reach: TmuxReach): string => {
  const quote = kind === "fish" ? fishQuote : shellQuote
  const bin = `command ${quote(reach.bin)}`
  // A tmux client with no socket flag uses the socket `TMUX` names (cut at its first comma).
  return reach.shellKnowsSocket ? bin : `${bin} -S ${quote(reach.socketPath)}`
}

/** The text typed into the pane (the final Enter is sent separately). */
export const typedText = (options: {
  readonly kind: ShellKind
  readonly command: string
  readonly runId: string
  readonly paneId: string
  readonly reach: TmuxReach
  readonly suppressHistory: boolean
  /** Record the cursor position right before the command runs (see `needsStartMark`). */
  readonly markStart: boolean
  /** Run the command in the shell itself (fish always does), not in a subshell. */
  readonly inShell: boolean
  /**
   * The shell has `set -e` on (left by an in-shell run): a subshell that fails would end it, so
   * errexit is off around the subshell, on inside it, and on again after the trailer.
   */
  readonly errexit: boolean
}): string => {
  const names = protocolNames(options.runId)
  const tmux = tmuxWord(options.kind, options.reach)
  const pane = options.paneId
  const fish = options.kind === "fish"
  const status = fish ? "$status" : "$?"
  const guarded = !fish && !options.inShell && options.errexit
  // What xtrace would print of the protocol's commands goes to /dev/null (fish has no xtrace).
  const quiet = (commands: string) => commands === "" ? "" : fish ? commands : `{ ${commands};} 2>/dev/null`
  const [open, close] = fish ? ["begin;", "end;"] : options.inShell ? ["{", "};"] : ["(", ");"]
  const mark = options.markStart ? `${tmux} run -t${pane} -C '#{${names.markTemplate}}'` : ""
  const before = quiet([...(guarded ? ["set +e"] : []), ...(mark === "" ? [] : [mark])].join(";"))
  // An in-shell run leaves the shell's option letters on the pane (see `paneRunOptions.shellFlags`).
  const flags = options.inShell && !fish ? `set -pt${pane} ${paneRunOptions.shellFlags} $$x$-;` : ""
  const report = `${tmux} run -t${pane} -C "${flags}#{${names.template}}${status}'"${guarded ? ";set -e" : ""}`
  return `${options.suppressHistory ? " " : ""}${before === "" ? "" : `${before}; `}${open}` +
    `${guarded ? ` ${quiet("set -e")};` : ""} ${options.command.replace(/\s+$/u, "")}\n${close} ${quiet(report)}`
}

/**
 * The option letters an in-shell run left (`<pid>x<$->`, see `paneRunOptions.shellFlags`), when the shell
 * that left them is still the pane's process (a respawned pane has a new shell), else "".
 */
export const shellFlagsOf = (value: string, panePid: number): string => {
  const left = /^([0-9]+)x([A-Za-z0-9]*)$/u.exec(value)
  return left !== null && Number(left[1]) === panePid ? `x${left[2]}` : ""
}

/** Whether option letters as `shellFlagsOf` gives them have `set -e` on. */
export const hasErrexit = (flags: string): boolean => /^x[A-Za-z0-9]*e/u.test(flags)

/** Whether option letters as `shellFlagsOf` gives them have `set -v` on: the shell echoes what it reads. */
export const hasVerbose = (flags: string): boolean => /^x[A-Za-z0-9]*v/u.test(flags)

/**
 * Whether a screen row shows the shell's prompt as it was drawn when the run was typed, with the
 * cursor right after it and nothing typed: the shell is back at its prompt, not in a `read` of
 * the command's that prints a prompt of its own. A prompt that shows the directory changes with a
 * `cd`: one of more than four characters counts when its first and last two are the same.
 */
export const showsPrompt = (prompt: string, row: string, cursorX: number): boolean => {
  const shown = [...withoutInterrupt(sliceCells(row, cursorX))]
  const was = [...withoutInterrupt(prompt)]
  if (prompt.trim() === "" || dropCells(row, cursorX).trim() !== "") return false
  if (shown.join("") === was.join("")) return true
  const ends = (chars: ReadonlyArray<string>) => chars.slice(0, 2).join("") + chars.slice(-2).join("")
  return was.length > 4 && shown.length > 4 && ends(shown) === ends(was)
}

/**
 * A prompt row without the `^C` the terminal echoed before the shell drew it: an answered run's
 * trailer sends C-c (domain/runTemplates.ts), and the prompt after it starts on that row.
 */
const withoutInterrupt = (cells: string): string => cells.startsWith("^C") ? cells.slice(2) : cells

/** The last typed line: its echo ends where the command's output begins. */
export const trailerLine = (typed: string): string => typed.slice(typed.lastIndexOf("\n") + 1)
