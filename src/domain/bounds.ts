/**
 * Tail-preserving bounds on text returned to a client: the newest output matters most, so the
 * head is dropped first, and the counts of what was dropped are reported, never hidden.
 */

/** Lines kept, and how much was dropped. @category models */
export interface Bounded {
  readonly lines: ReadonlyArray<string>
  readonly truncatedLines: number
  readonly truncatedBytes: number
}

const bytes = (text: string): number => Buffer.byteLength(text, "utf8")

/**
 * Keeps the last `maxLines` lines, then drops more head lines while the newline-joined text is over
 * `maxBytes`; a single remaining line that is still too long keeps its last `maxBytes` bytes.
 */
export const tailBound = (lines: ReadonlyArray<string>, maxLines: number, maxBytes: number): Bounded => {
  // The common case, everything fits: one measurement instead of one per line.
  if (lines.length <= maxLines && bytes(lines.join("\n")) <= maxBytes) {
    return { lines, truncatedLines: 0, truncatedBytes: 0 }
  }
  // Walk a start index forward and slice once: dropping by slicing would copy the rest per line.
  let first = Math.max(0, lines.length - maxLines)
  let truncatedBytes = lines.slice(0, first).reduce((sum, line) => sum + bytes(line) + 1, 0)
  let size = lines.slice(first).reduce((sum, line) => sum + bytes(line), 0) + Math.max(0, lines.length - first - 1)
  while (size > maxBytes && lines.length - first > 1) {
    const dropped = bytes(lines[first]!) + 1
    truncatedBytes += dropped
    size -= dropped
    first++
  }
  let kept = lines.slice(first)
  const truncatedLines = first
  if (size > maxBytes && kept.length === 1) {
    const buffer = Buffer.from(kept[0]!, "utf8")
    // Cut on a character boundary: skip UTF-8 continuation bytes.
    let start = buffer.length - maxBytes
    while (start < buffer.length && (buffer[start]! & 0xc0) === 0x80) start++
    truncatedBytes += start
    kept = [buffer.subarray(start).toString("utf8")]
  }
  return { lines: kept, truncatedLines, truncatedBytes }
}

/**
 * The first row of a capture from `start` to `end` (rows as `capture-pane -S/-E` takes them; an
 * absent `end` is the screen's last row) worth reading when at most `historyRows` lines of history
 * can be kept: every screen row in the range (their trailing blank rows are trimmed before the
 * bound applies) plus that many rows above them. tmux swaps a reversed range, and so does this.
 */
export const firstRowToRead = (start: number | undefined, end: number | undefined, historyRows: number): number => {
  const first = start ?? 0
  const low = end === undefined ? first : Math.min(first, end)
  const high = end === undefined ? 0 : Math.max(first, end)
  return Math.max(low, Math.min(high + 1, 0) - historyRows)
}
