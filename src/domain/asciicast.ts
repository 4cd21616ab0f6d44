/**
 * asciicast v3, as the recordings write it: a header object on the first line, then one event per
 * line, `[interval, code, data]`, each interval the seconds since the event before it. Codes used:
 * `o` output, `r` resize (`COLSxROWS`), `m` marker (its data the label), `x` exit status. Input is
 * never written (`i`): keys a call typed appear as its marker, and as output only where the terminal echoed them.
 */

/** The bounds of a recording. @category models */
export interface RecordLimits {
  /** A file is closed, and the next part begun, once it holds this many bytes. */
  readonly partBytes: number
  /** The newest parts of a pane's recording kept; older ones are deleted. */
  readonly partsKept: number
  /** Events waiting for the disk, in bytes, beyond which output is dropped (and counted by a marker). */
  readonly queueBytes: number
}

/** 64 MiB a part, the newest 8 parts (512 MiB a pane), 8 MiB waiting for the disk. */
export const defaultRecordLimits: RecordLimits = {
  partBytes: 64 * 1024 * 1024,
  partsKept: 8,
  queueBytes: 8 * 1024 * 1024
}

/** What a recording's header says of its pane. @category models */
export interface CastHeader {
  readonly cols: number
  readonly rows: number
  /** Unix seconds at the start of this part. */
  readonly timestamp: number
  readonly instance: string
  /** The tmux socket's path. */
  readonly socket: string
  readonly pane: string
  /** The part of the pane's recording this file is, from 1 (a full part starts the next). */
  readonly part: number
}

/** The header line. Readers ignore keys they do not know: the recording's own facts go under `libtmux_mcp`. */
export const headerLine = (header: CastHeader): string =>
  JSON.stringify({
    version: 3,
    term: { cols: header.cols, rows: header.rows },
    timestamp: header.timestamp,
    title: `tmux pane ${header.pane}`,
    libtmux_mcp: {
      instance: header.instance,
      socket: header.socket,
      pane: header.pane,
      part: header.part
    }
  }) + "\n"

/** An event's code. @category models */
export type CastCode = "o" | "r" | "m" | "x"

/**
 * Intervals in milliseconds, rounded, counted from the rounded time of the event before, so that
 * rounding never drifts: the sum of a file's intervals is its events' time since its start.
 */
export const castClock = (startedMs: number) => {
  let last = startedMs
  return (nowMs: number): number => {
    const interval = Math.max(0, Math.round(nowMs - last))
    last += interval
    return interval / 1000
  }
}

/** One event line. */
export const eventLine = (interval: number, code: CastCode, data: string): string =>
  `[${interval.toFixed(3)}, ${JSON.stringify(code)}, ${JSON.stringify(data)}]\n`

/** A marker's label for a call: the tool, then the audit record's instance and call, as `<tool> <instance>#<call>`. */
export const callLabel = (tool: string, instance: string, call: number): string => `${tool} ${instance}#${call}`

/** What a pane looked like when its recording began: what tmux printed of its screen, and its cursor. */
export interface ScreenStart {
  /** `capture-pane -p -e`: one line per row, with its style sequences. */
  readonly rows: ReadonlyArray<string>
  readonly cursorX: number
  readonly cursorY: number
}

/**
 * The first output of a recording that starts on a pane already in use: the screen cleared and
 * drawn as tmux shows it, the cursor put where it is. A replay then starts from that picture.
 */
export const screenOutput = (screen: ScreenStart): string =>
  "\u001b[0m\u001b[H\u001b[2J" + screen.rows.join("\u001b[0m\r\n") + "\u001b[0m" +
  `\u001b[${screen.cursorY + 1};${screen.cursorX + 1}H`

/**
 * A recording's file name: this instance's tag, the recording's number in this process (a pane ID
 * comes back after a tmux server restarts) and the pane; a part after the first says its number.
 */
export const castFileName = (instance: string, sequence: number, pane: string, part: number): string =>
  `${instance}-${sequence}-pane${pane.replace(/^%/u, "")}${part === 1 ? "" : `.part${part}`}.cast`

/**
 * The shell command tmux's `pipe-pane` runs: its standard output sent to the FIFO (only while it is
 * one: a path gone meanwhile is not made a file), one `R` written first (so the reader knows the
 * writer is there), then the pane's output copied as it comes.
 * tmux expands the command as a format and with strftime, so `#` and `%` are doubled; the path is
 * single-quoted for the shell.
 */
export const pipeCommand = (fifo: string): string => {
  const quoted = `'${fifo.replaceAll("'", "'\\''")}'`
  return `[ -p ${quoted} ] && exec >${quoted} && printf R && exec cat`.replaceAll("#", "##").replaceAll("%", "%%")
}
