/**
 * The completion protocol of run_shell_command, as pure functions: which shells it can drive, the
 * text it types, and how the command's own output is cut out of the pane's rows afterwards.
 *
 * What is typed (POSIX shells; fish uses `begin … end` and `$status`):
 *
 *     (
 *     <the command, as given>
 *     ); '<tmux>' -S '<socket>' if -F '#{@lmcp_w_ID}' "set -pF -t %N @lmcp_e_ID '#{history_size} #{cursor_y} #{cursor_x} $?' ; wait-for -S lmcp_ID"
 *
 * For shells that do not edit their own input line, a mark before the subshell records where the
 * output starts (see `needsStartMark`).
 *
 * The command runs in a subshell on the pane's own terminal (colours, isatty, pagers as for a
 * person). Its exit status is passed straight to tmux as `$?`, so no shell variable is assigned.
 * The trailer records where output ended and signals the per-call channel only while the server
 * option `@lmcp_w_ID` says a call still waits: the server unsets it before giving up, so a late
 * completion leaves no option and no latched channel behind. The command's output is read back
 * from the pane: the rows after the echoed trailer line (found by the call's random ID, which the
 * output cannot contain), up to the recorded end.
 */
import { dropCells, sliceCells } from "./cells.ts"
import { shellQuote } from "./quote.ts"

/** The shell families the protocol speaks. @category models */
export type ShellKind = "posix" | "fish"

const posixShells = new Set(["sh", "bash", "dash", "zsh", "ksh", "ksh93", "mksh", "ash", "yash", "busybox"])

/** The family of a shell by its command name, or `undefined` when the protocol cannot drive it. */
export const shellKind = (command: string): ShellKind | undefined =>
  posixShells.has(command) ? "posix" : command === "fish" ? "fish" : undefined

/** The shells the protocol drives, for error messages. */
export const supportedShells = "bash, zsh, dash/sh, ksh, mksh, ash, yash, fish"

/** Names of the per-call options and channel. */
export const protocolNames = (id: string) => ({
  waiting: `@lmcp_w_${id}`,
  start: `@lmcp_s_${id}`,
  end: `@lmcp_e_${id}`,
  channel: `lmcp_${id}`
})

/**
 * Shells that edit their own input line echo typed lines and continuation prompts in order. Others
 * (dash and other line-buffered shells) let the terminal echo everything typed at once and print
 * their continuation prompts afterwards, so for them the command marks where its output starts.
 */
export const needsStartMark = (shell: string): boolean => !["bash", "zsh", "fish"].includes(shell)

const fishQuote = (word: string): string => `'${word.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`

/** What the command may not contain: control characters other than newline and tab. */
export const commandProblem = (command: string): string | undefined => {
  if (command.trim() === "") return "must not be empty"
  // oxlint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/u.test(command)) return "must not contain control characters other than newline and tab"
  return undefined
}

/** The text typed into the pane (the final Enter is sent separately). */
export const typedText = (options: {
  readonly kind: ShellKind
  readonly command: string
  readonly id: string
  readonly paneId: string
  readonly tmuxPath: string
  readonly socketPath: string
  readonly suppressHistory: boolean
  /** Record the cursor position right before the command runs (see `needsStartMark`). */
  readonly markStart: boolean
}): string => {
  const names = protocolNames(options.id)
  const quote = options.kind === "fish" ? fishQuote : shellQuote
  const status = options.kind === "fish" ? "$status" : "$?"
  // Records the cursor in a pane option, only while the call still waits.
  const record = (option: string, extra: string) =>
    `${quote(options.tmuxPath)} -S ${quote(options.socketPath)} if -F '#{${names.waiting}}' ` +
    `"set -pF -t ${options.paneId} ${option} '#{history_size} #{cursor_y} #{cursor_x}${extra}`
  const trailer = `${record(names.end, ` ${status}'`)} ; wait-for -S ${names.channel}"`
  const [open, close] = options.kind === "fish" ? ["begin", "end;"] : ["(", ");"]
  const mark = options.markStart ? `${record(names.start, `'`)}"; ` : ""
  return `${options.suppressHistory ? " " : ""}${mark}${open}\n${options.command.replace(/\s+$/u, "")}\n${close} ${trailer}`
}

/** Where the command's output ended, as the trailer recorded it. @category models */
export interface EndRecord {
  readonly historySize: number
  readonly cursorY: number
  readonly cursorX: number
  readonly status: number
}

/** Parses the trailer's record (`history_size cursor_y cursor_x status`), or `undefined`. */
export const parseEndRecord = (text: string): EndRecord | undefined => {
  const fields = text.trim().split(" ").map((field) => Number.parseInt(field, 10))
  if (fields.length !== 4 || fields.some((field) => !Number.isFinite(field))) return undefined
  const [historySize, cursorY, cursorX, status] = fields as [number, number, number, number]
  return { historySize, cursorY, cursorX, status }
}

/** The output cut out of the pane, and whether its start was found. @category models */
export interface Extracted {
  readonly lines: ReadonlyArray<string>
  /** False when the echoed trailer was not among the captured rows (trimmed from history). */
  readonly startFound: boolean
}

/**
 * Cuts the command's output out of captured rows.
 * - `rows`: the pane's rows from some row at or before the prompt, down to the bottom, untrimmed
 *   (`capture-pane -N`); `joined`: the same range with wrapped rows joined (`capture-pane -J`).
 * - `token`: the call's ID, present in the echoed trailer line and nowhere in the output.
 * - `endRow`/`endColumn`: the end position as an index into `rows` and a cell column.
 */
export const extractOutput = (
  rows: ReadonlyArray<string>,
  joined: ReadonlyArray<string>,
  token: string,
  endRow: number,
  endColumn: number,
  start?: { readonly row: number; readonly column: number }
): Extracted => {
  // Which rows each joined line spans: joined lines are untrimmed rows concatenated.
  const spans: Array<{ readonly first: number; readonly count: number }> = []
  let row = 0
  for (const line of joined) {
    const first = row
    let length = 0
    do {
      length += (rows[row] ?? "").length
      row++
    } while (length < line.length && row < rows.length)
    spans.push({ first, count: row - first })
  }
  let from = start !== undefined && start.row >= 0 ? start.row : -1
  if (start === undefined) {
    joined.forEach((line, index) => {
      if (line.includes(token) && spans[index]!.first <= endRow) from = spans[index]!.first + spans[index]!.count
    })
  }
  const startFound = from !== -1
  const startRow = Math.max(0, from)
  const startColumn = start !== undefined && start.row >= 0 ? start.column : 0
  const lines: Array<string> = []
  for (const { first, count } of spans) {
    const a = Math.max(first, startRow)
    const b = Math.min(first + count - 1, endRow)
    // Nothing of this line lies in the range, or it lies on the end row where nothing was written.
    if (a > b || (a === endRow && endColumn <= (a === startRow ? startColumn : 0))) continue
    let text = ""
    for (let r = a; r <= b; r++) {
      let cells = rows[r] ?? ""
      if (r === endRow) cells = sliceCells(cells, endColumn)
      if (r === startRow && startColumn > 0) cells = dropCells(cells, startColumn)
      text += cells
    }
    lines.push(text)
  }
  return { lines: lines.map((line) => line.replace(/\s+$/u, "")), startFound }
}
