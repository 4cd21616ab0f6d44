/**
 * A pane's screen as `capture-pane -e` prints it, made into plain rows and style runs for the pane
 * view. tmux writes each row's escapes relative to where the previous row ended (the attributes
 * carry over), so rows are read in order with one running style. Only SGR is kept; any other escape
 * is dropped, so nothing a program printed reaches the view as markup or as a control sequence.
 */

/** The attributes in force at a cell, as SGR sets them. */
interface Pen {
  fg: string
  bg: string
  flags: string
}

/** One style run: [first index, end index (exclusive), style], indices in UTF-16 units of the row's text. */
export type StyleRun = readonly [number, number, string]

/** A screen read: one plain string per row, and the runs of styled text in them. @category models */
export interface StyledRows {
  readonly rows: ReadonlyArray<string>
  readonly styles: ReadonlyArray<readonly [row: number, ...StyleRun]>
}

// 21 is a double underline (ECMA-48, xterm): an underline here.
const flagOf: Readonly<Record<number, string>> = {
  21: "U",
  1: "B",
  2: "D",
  3: "I",
  4: "U",
  5: "K",
  6: "K",
  7: "R",
  8: "H",
  9: "S"
}
const flagsOff: Readonly<Record<number, string>> = {
  22: "BD",
  23: "I",
  24: "U",
  25: "K",
  27: "R",
  28: "H",
  29: "S"
}

const hex = (value: number) => Math.max(0, Math.min(255, value)).toString(16).padStart(2, "0")

/** An extended colour from its parameters after 38/48/58: `5;n`, `2;r;g;b`, or the colon forms (`2::r:g:b`). */
const colourOf = (params: ReadonlyArray<number>): string => {
  if (params[0] === 5) return String(params[1] ?? 0)
  if (params[0] !== 2) return ""
  const rgb = params.length >= 5 ? params.slice(2) : params.slice(1)
  return `#${hex(rgb[0] ?? 0)}${hex(rgb[1] ?? 0)}${hex(rgb[2] ?? 0)}`
}

const withFlag = (flags: string, flag: string) => flags.includes(flag) ? flags : [...flags, flag].sort().join("")
const withoutFlags = (flags: string, off: string) => [...flags].filter((flag) => !off.includes(flag)).join("")
const numbers = (text: string) => text.split(":").map((part) => part === "" ? 0 : Number(part))

/** Applies one code with its colon sub-parameters (`4:3`, `38:2::1:2:3`) to the pen. */
const applyCode = (pen: Pen, code: number, subs: ReadonlyArray<number>): void => {
  if (code === 0) Object.assign(pen, { fg: "", bg: "", flags: "" })
  else if (code === 4 && subs[0] === 0) pen.flags = withoutFlags(pen.flags, "U")
  else if (flagOf[code] !== undefined) pen.flags = withFlag(pen.flags, flagOf[code])
  else if (flagsOff[code] !== undefined) pen.flags = withoutFlags(pen.flags, flagsOff[code])
  else if (code >= 30 && code <= 37) pen.fg = String(code - 30)
  else if (code >= 90 && code <= 97) pen.fg = String(code - 82)
  else if (code >= 40 && code <= 47) pen.bg = String(code - 40)
  else if (code >= 100 && code <= 107) pen.bg = String(code - 92)
  else if (code === 39) pen.fg = ""
  else if (code === 49) pen.bg = ""
  else if (code === 38) pen.fg = colourOf(subs)
  else if (code === 48) pen.bg = colourOf(subs)
}

/** Applies one SGR sequence's parameters (`1;31`, `38;5;208`, `4:3`, empty for a reset) to the pen. */
const applySgr = (pen: Pen, text: string): void => {
  const parts = text === "" ? ["0"] : text.split(";")
  for (let at = 0; at < parts.length; at++) {
    const [code = 0, ...subs] = numbers(parts[at] ?? "")
    const extended = (code === 38 || code === 48 || code === 58) && subs.length === 0
    if (!extended) {
      applyCode(pen, code, subs)
      continue
    }
    // The semicolon form: the colour's parameters follow as parameters of their own.
    const rest = parts.slice(at + 1).map(Number)
    const taken = rest[0] === 5 ? 2 : rest[0] === 2 ? 4 : 0
    applyCode(pen, code, rest.slice(0, taken))
    at += taken
  }
}

/** The pen as the view's style word: `f<colour> b<colour> <flags>`, empty for the default. */
const styleOf = (pen: Pen): string =>
  [pen.fg === "" ? "" : `f${pen.fg}`, pen.bg === "" ? "" : `b${pen.bg}`, pen.flags].filter((part) => part !== "")
    .join(" ")

// CSI (parameters, intermediates, final), OSC and DCS strings (to BEL or ST), or a two-byte escape.
// oxlint-disable-next-line no-control-regex -- escapes are what is parsed
const escape = /\x1b(?:\[([0-9;:?<=>]*)[ -/]*([@-~])|[\]P_^][^\x07\x1b]*(?:\x07|\x1b\\)?|[^[\]P_^])/gu
// oxlint-disable-next-line no-control-regex -- the controls are what is removed
const controls = /[\x00-\x08\x0b-\x1f\x7f]/gu

/** Reads `capture-pane -p -e` output (one row per line) into plain rows and style runs. */
export const styledRows = (lines: ReadonlyArray<string>): StyledRows => {
  const pen: Pen = { fg: "", bg: "", flags: "" }
  const rows: Array<string> = []
  const styles: Array<readonly [number, number, number, string]> = []
  lines.forEach((line, row) => {
    let text = ""
    let runStart = 0
    let style = styleOf(pen)
    const close = () => {
      if (style !== "" && text.length > runStart) styles.push([row, runStart, text.length, style])
      runStart = text.length
    }
    let last = 0
    for (const match of line.matchAll(escape)) {
      text += line.slice(last, match.index).replace(controls, "")
      last = match.index + match[0].length
      // Only a plain SGR: one with a private marker (`CSI > 4 ; 1 m`, xterm's key modes) sets no attribute.
      if (match[2] !== "m" || /^[?<=>]/u.test(match[1] ?? "")) continue
      applySgr(pen, match[1] ?? "")
      const next = styleOf(pen)
      if (next !== style) {
        close()
        style = next
      }
    }
    text += line.slice(last).replace(controls, "")
    close()
    rows.push(text)
  })
  return { rows, styles }
}
