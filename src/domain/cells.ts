/**
 * Terminal cell widths, to cut a captured row at the cursor column: wide (East Asian and most
 * emoji) characters take two cells, combining marks none.
 */

const wide = (code: number): boolean =>
  (code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
  (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) || (code >= 0xfe30 && code <= 0xfe4f) ||
  (code >= 0xff00 && code <= 0xff60) || (code >= 0xffe0 && code <= 0xffe6) || (code >= 0x1f300 && code <= 0x1f64f) ||
  (code >= 0x1f900 && code <= 0x1f9ff) || (code >= 0x20000 && code <= 0x3fffd)

/** The cells one character occupies. */
export const cellWidth = (char: string): number => {
  const code = char.codePointAt(0) ?? 0
  if (code === 0 || (code >= 0x300 && code <= 0x36f) || code === 0x200b || (code >= 0xfe00 && code <= 0xfe0f)) return 0
  return wide(code) ? 2 : 1
}

/** The prefix of `text` that fits in `cells` terminal cells. */
export const sliceCells = (text: string, cells: number): string => {
  let used = 0
  let out = ""
  for (const char of text) {
    const width = cellWidth(char)
    if (used + width > cells) break
    used += width
    out += char
  }
  return out
}

/** What remains of `text` after its first `cells` terminal cells. */
export const dropCells = (text: string, cells: number): string => text.slice(sliceCells(text, cells).length)

/** The cells `text` occupies. */
export const cellsOf = (text: string): number => {
  let used = 0
  for (const char of text) used += cellWidth(char)
  return used
}
