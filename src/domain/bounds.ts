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
 * The most characters a result may take as JSON: Claude Code keeps a larger result out of the
 * model's view (a file and a preview) even when the tool declares it may be this long.
 */
export const maxResultChars = 500_000
/** What a result's text may take of that as a JSON string; the rest is for the result's other fields. */
export const maxTextChars = 480_000

/** The characters `text` takes inside a JSON string, escapes counted, quotes not. */
export const jsonLength = (text: string): number => JSON.stringify(text).length - 2

/** The characters one UTF-16 unit takes inside a JSON string (a lone surrogate is escaped as \uXXXX). */
const unitChars = (text: string, i: number): number => {
  const code = text.charCodeAt(i)
  // \" \\ \b \t \n \f \r; every other control character as \u00XX.
  if (code === 0x22 || code === 0x5c || (code >= 0x08 && code <= 0x0d && code !== 0x0b)) return 2
  if (code < 0x20) return 6
  if (code >= 0xd800 && code <= 0xdbff) {
    const next = text.charCodeAt(i + 1)
    return next >= 0xdc00 && next <= 0xdfff ? 1 : 6
  }
  if (code >= 0xdc00 && code <= 0xdfff) {
    const previous = text.charCodeAt(i - 1)
    return previous >= 0xd800 && previous <= 0xdbff ? 1 : 6
  }
  return 1
}

/** The last part of `line` that takes at most `maxChars` inside a JSON string, cut between characters. */
const lastChars = (line: string, maxChars: number): string => {
  let start = 0
  let size = jsonLength(line)
  while (size > maxChars && start < line.length) {
    // A surrogate pair goes as one character.
    const width = line.charCodeAt(start) >= 0xd800 && line.charCodeAt(start) <= 0xdbff &&
        line.charCodeAt(start + 1) >= 0xdc00 && line.charCodeAt(start + 1) <= 0xdfff
      ? 2
      : 1
    for (let i = start; i < start + width; i++) size -= unitChars(line, i)
    start += width
  }
  return line.slice(start)
}

/**
 * Keeps the last `maxLines` lines, then drops more head lines while the newline-joined text is over
 * `maxBytes`, or takes more than `maxChars` characters as a JSON string (control characters escape to
 * six); a single remaining line that is still too long keeps its last part that fits both.
 */
export const tailBound = (
  lines: ReadonlyArray<string>,
  maxLines: number,
  maxBytes: number,
  maxChars: number = maxTextChars
): Bounded => {
  const byBytes = bytesBound(lines, maxLines, maxBytes)
  // No character escapes to more than six, and no UTF-8 byte is less than a character.
  const joinedBytes = byBytes.lines.reduce((sum, line) => sum + bytes(line), 0) + byBytes.lines.length
  if (joinedBytes * 6 <= maxChars) return byBytes
  const sizes = byBytes.lines.map(jsonLength)
  // Each newline between lines is "\n" in JSON: two characters.
  let size = sizes.reduce((sum, chars) => sum + chars, 0) + 2 * Math.max(0, sizes.length - 1)
  if (size <= maxChars) return byBytes
  let first = 0
  let truncatedBytes = byBytes.truncatedBytes
  while (size > maxChars && byBytes.lines.length - first > 1) {
    size -= sizes[first]! + 2
    truncatedBytes += bytes(byBytes.lines[first]!) + 1
    first++
  }
  let kept = byBytes.lines.slice(first)
  if (size > maxChars) {
    const cut = lastChars(kept[0]!, maxChars)
    truncatedBytes += bytes(kept[0]!) - bytes(cut)
    kept = [cut]
  }
  return { lines: kept, truncatedLines: byBytes.truncatedLines + first, truncatedBytes }
}

const bytesBound = (lines: ReadonlyArray<string>, maxLines: number, maxBytes: number): Bounded => {
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
