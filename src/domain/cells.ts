/**
 * Terminal cell widths, to cut a captured row at the cursor column: wide (East Asian and most
 * emoji) characters take two cells, combining marks none.
 */

// Symbols Unicode 9 made wide (East Asian Width W) in the Basic Multilingual Plane, as glibc's wcwidth counts them.
const wideSymbols = new Set([
  0x231a,
  0x231b,
  0x23e9,
  0x23ea,
  0x23eb,
  0x23ec,
  0x23f0,
  0x23f3,
  0x25fd,
  0x25fe,
  0x2614,
  0x2615,
  0x267f,
  0x2693,
  0x26a1,
  0x26aa,
  0x26ab,
  0x26bd,
  0x26be,
  0x26c4,
  0x26c5,
  0x26ce,
  0x26d4,
  0x26ea,
  0x26f2,
  0x26f3,
  0x26f5,
  0x26fa,
  0x26fd,
  0x2705,
  0x270a,
  0x270b,
  0x2728,
  0x274c,
  0x274e,
  0x2753,
  0x2754,
  0x2755,
  0x2757,
  0x2795,
  0x2796,
  0x2797,
  0x27b0,
  0x27bf,
  0x2b1b,
  0x2b1c,
  0x2b50,
  0x2b55
])

const wide = (code: number): boolean =>
  (code >= 0x1100 && code <= 0x115f) || (code >= 0x2e80 && code <= 0xa4cf && code !== 0x303f) ||
  (code >= 0xac00 && code <= 0xd7a3) || (code >= 0xf900 && code <= 0xfaff) || (code >= 0xfe30 && code <= 0xfe4f) ||
  (code >= 0xff00 && code <= 0xff60) || (code >= 0xffe0 && code <= 0xffe6) || (code >= 0x1f300 && code <= 0x1f64f) ||
  (code >= 0x1f680 && code <= 0x1f6ff) || (code >= 0x1f900 && code <= 0x1f9ff) ||
  (code >= 0x1fa70 && code <= 0x1faff) || (code >= 0x2648 && code <= 0x2653) || wideSymbols.has(code) ||
  (code >= 0x20000 && code <= 0x3fffd)

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
