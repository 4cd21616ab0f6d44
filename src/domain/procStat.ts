/**
 * /proc/<pid>/stat read as text: the one parser every reader of it shares. The command name
 * (field 2) is in parentheses and may itself hold spaces or parentheses, so the fields are counted
 * from its last closing parenthesis. And the clock tick rate those times count in, as the process's
 * auxiliary vector (/proc/self/auxv) holds it. Pure: the reads are in platform/Proc.ts.
 */

/** The fields of /proc/<pid>/stat that are read here (see proc(5)). @category models */
export interface ProcStat {
  /** Field 2: the command name. */
  readonly comm: string
  /** Field 3: the state (`R`, `S`, `Z` …). */
  readonly state: string
  /** Field 4: the parent's process ID. */
  readonly ppid: number
  /** Field 5: the process group. */
  readonly pgrp: number
  /** Field 7: the controlling terminal's device number (0 when there is none). */
  readonly ttyNr: number
  /** Field 8: the foreground process group of the controlling terminal. */
  readonly tpgid: number
  /** Field 22: the start time, in clock ticks after boot. */
  readonly started: number
  /** Fields 48-51 (arg_start, arg_end, env_start, env_end), or `undefined` when hidden (zeros). */
  readonly image: string | undefined
  /** Field 52: the wait status of a zombie, or `undefined` when the line stops before it. */
  readonly waited: number | undefined
}

/** Parses /proc/<pid>/stat (a field the line lacks is NaN), or `undefined` when it has no command name. */
export const parseProcStat = (text: string): ProcStat | undefined => {
  const open = text.indexOf("(")
  const close = text.lastIndexOf(")")
  if (open === -1 || close < open) return undefined
  // Counted from field 3 at index 0.
  const fields = text.slice(close + 2).split(" ")
  const waited = fields[49] === undefined ? undefined : Number(fields[49])
  return {
    comm: text.slice(open + 1, close),
    state: fields[0] ?? "",
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    ttyNr: Number(fields[4]),
    tpgid: Number(fields[5]),
    started: Number(fields[19]),
    image: fields.length >= 49 && fields.slice(45, 49).some((field) => field !== "0")
      ? fields.slice(45, 49).join(" ")
      : undefined,
    waited: waited !== undefined && Number.isInteger(waited) ? waited : undefined
  }
}

/** AT_CLKTCK: the auxiliary vector's entry for the clock tick rate (see getauxval(3)). */
const atClockTicks = 17

/**
 * The clock tick rate in an auxiliary vector (/proc/self/auxv: pairs of words, type then value,
 * ended by type 0), which is where sysconf(_SC_CLK_TCK) takes it from; `undefined` when absent.
 */
export const clockTicksOfAuxv = (auxv: Uint8Array, wordBytes: 4 | 8, littleEndian: boolean): number | undefined => {
  const view = new DataView(auxv.buffer, auxv.byteOffset, auxv.byteLength)
  const word = (at: number) =>
    wordBytes === 8 ? Number(view.getBigUint64(at, littleEndian)) : view.getUint32(at, littleEndian)
  for (let at = 0; at + 2 * wordBytes <= auxv.byteLength; at += 2 * wordBytes) {
    const type = word(at)
    if (type === 0) return undefined
    if (type === atClockTicks) {
      const ticks = word(at + wordBytes)
      return Number.isSafeInteger(ticks) && ticks > 0 ? ticks : undefined
    }
  }
  return undefined
}
