/**
 * Which tmux panes contain a process, as the kernel tells it: a pane whose process (`#{pane_pid}`)
 * is the process or one of its ancestors, or whose terminal (`#{pane_tty}`) is its controlling
 * terminal. MCP clients start servers with a pared-down environment (no TMUX, no TMUX_PANE), so
 * the process tree is what still says where this server runs. Pure over a reader, so tests feed it
 * a made-up /proc; elsewhere than Linux the live reader finds nothing and nothing is found.
 */
import { parseProcStat } from "./procStat.ts"

/** The two fields of /proc/<pid>/stat this needs. @category models */
export interface ProcessStat {
  /** Field 4: the parent's process ID. */
  readonly ppid: number
  /** Field 7: the controlling terminal's device number (0 when there is none). */
  readonly ttyNr: number
}

/** What the search reads from the system; the live one is platform/Proc.ts's `processReader`. @category models */
export interface ProcessReader {
  /** The text of /proc/<pid>/stat, or `undefined` when it cannot be read. */
  readonly stat: (pid: number) => string | undefined
  /** The device number (rdev) of a terminal device file, or `undefined`. */
  readonly device: (path: string) => number | undefined
}

/** A pane as the search needs it. @category models */
export interface PaneProcessRow {
  readonly pane_id: string
  readonly pane_pid: number
  readonly pane_tty: string
}

/** Parses /proc/<pid>/stat, or `undefined` when the text is not one. */
export const parseStat = (text: string): ProcessStat | undefined => {
  const stat = parseProcStat(text)
  return stat !== undefined && Number.isInteger(stat.ppid) && Number.isInteger(stat.ttyNr)
    ? { ppid: stat.ppid, ttyNr: stat.ttyNr }
    : undefined
}

// Deeper than any real process tree; stops a malformed reader from looping.
const maxDepth = 1024

/** `pid` and its ancestors, nearest first, up to (not including) init. */
export const ancestry = (pid: number, reader: ProcessReader): ReadonlyArray<number> => {
  const chain: Array<number> = []
  for (let current = pid; current > 1 && chain.length < maxDepth && !chain.includes(current);) {
    chain.push(current)
    const text = reader.stat(current)
    const stat = text === undefined ? undefined : parseStat(text)
    if (stat === undefined) break
    current = stat.ppid
  }
  return chain
}

/** The controlling terminal's device number of `pid`, or `undefined` when it has none. */
export const controllingTerminal = (pid: number, reader: ProcessReader): number | undefined => {
  const text = reader.stat(pid)
  const stat = text === undefined ? undefined : parseStat(text)
  return stat === undefined || stat.ttyNr === 0 ? undefined : stat.ttyNr
}

/**
 * The panes among `panes` that contain the process `pid`. The kernel encodes tty_nr as it
 * encodes st_rdev for every major below 4096 and minor below 2^20, which covers terminals, so the
 * two numbers compare as they are.
 */
export const panesContaining = (
  panes: ReadonlyArray<PaneProcessRow>,
  pid: number,
  reader: ProcessReader
): ReadonlyArray<string> => {
  const ancestors = new Set(ancestry(pid, reader))
  const terminal = controllingTerminal(pid, reader)
  return panes.filter((pane) =>
    ancestors.has(pane.pane_pid) ||
    (terminal !== undefined && pane.pane_tty !== "" && reader.device(pane.pane_tty) === terminal)
  ).map((pane) => pane.pane_id)
}
