/**
 * The protocol-name rule: every name the run protocol puts into tmux (pane options, channels, paste
 * buffers, marks, the run ID's form) is spelled in src/domain/protocolNames.ts only, so the readers,
 * the grammar and the leftover sweep cannot drift apart. This finds a spelling of one in any other
 * file's code (strings, templates, regular expressions); comments may name them. Pure: the
 * command is check-protocol-names.ts.
 */
import { blank } from "./boundaries.ts"

/** The one module that spells the names. */
export const namesModule = "src/domain/protocolNames.ts"

/** What a protocol name looks like in a literal. */
const spellings: ReadonlyArray<{ readonly pattern: RegExp; readonly what: string }> = [
  { pattern: /@lmcp_/u, what: "a pane option (@lmcp_…)" },
  { pattern: /lmcp[-_]/u, what: "a channel or mark (lmcp_…, lmcp-…)" },
  { pattern: /libtmux-mcp-paste/u, what: "a paste buffer's name" },
  { pattern: /@[lm](?:\$\{|[0-9a-f]{6}(?![0-9a-z])|\[0-9a-f\])/u, what: "a run's template option (@l<id>, @m<id>)" },
  { pattern: /\[lm\]/u, what: "a run's template options in a pattern ([lm])" }
]

/** A line that spells a protocol name. @category models */
export interface Spelling {
  readonly line: number
  readonly text: string
  readonly what: string
}

/**
 * The lines of `source` whose code (strings, templates and regular expressions included; comments
 * blanked as the boundary check blanks them) spells a protocol name; none in the names module.
 */
export const spellingsIn = (path: string, source: string): ReadonlyArray<Spelling> => {
  if (path === namesModule) return []
  return blank(source, false).split("\n").flatMap((text, index) => {
    const spelled = spellings.find(({ pattern }) => pattern.test(text))
    return spelled === undefined ? [] : [{ line: index + 1, text: text.trim(), what: spelled.what }]
  })
}
