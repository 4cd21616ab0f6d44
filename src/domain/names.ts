/**
 * The target grammar: tmux IDs, and the names this server accepts for sessions and windows.
 *
 * Security: tmux expands `#{...}` and runs `#(...)` in the `-s`/`-n` positions, rewrites `.` and
 * `:` in names, escapes `\` in session names, and reads `$1`/`@1`/`%1` as IDs. Names are
 * therefore checked against a closed grammar here and literalized (runs of `#` doubled) before
 * they reach a format-expanding argument.
 */
import { controlSessionPrefix, isControlSession } from "./protocolNames.ts"

/** tmux session IDs look like `$3`. */
export const sessionIdPattern = /^\$\d+$/u
/** tmux window IDs look like `@3`. */
export const windowIdPattern = /^@\d+$/u
/** tmux pane IDs look like `%3`. */
export const paneIdPattern = /^%\d+$/u

/** The longest name accepted for a session or window. */
export const maxNameLength = 128

/**
 * Why a session or window name is not acceptable, or `undefined` when it is.
 * Plain text: it may not be empty, hold control characters, contain `.` or `:` (tmux would
 * rewrite them to `_`) or `\` (tmux stores a session name's `\` as `\\`, so a lookup by the
 * given name fails), or begin with `$`, `@` or `%` (tmux would read it as an ID), or with the
 * prefix of the control connections' hidden sessions.
 */
export const nameProblem = (name: string): string | undefined => {
  if (name.length === 0) return "must not be empty"
  if (name.length > maxNameLength) return `must be at most ${maxNameLength} characters`
  // oxlint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/u.test(name)) return "must not contain control characters"
  if (/[.:]/u.test(name)) return "must not contain '.' or ':' (tmux would rewrite them to '_')"
  if (name.includes("\\")) {
    return "must not contain '\\' (tmux stores it escaped, so the name would not be found again as given)"
  }
  if (/^[$@%]/u.test(name)) return "must not begin with '$', '@' or '%' (tmux would read it as an ID)"
  if (isControlSession(name)) {
    return `must not begin with '${controlSessionPrefix}' (the names of libtmux-mcp's own hidden sessions)`
  }
  return undefined
}

/**
 * Text that tmux's format expansion turns back into exactly `text`: every run of `#` is doubled
 * (`##` expands to `#`), except a run followed by `[`, which tmux keeps as written (a style).
 */
export const literalizeFormat = (text: string): string =>
  text.replace(/#+/gu, (run: string, offset: number) => text[offset + run.length] === "[" ? run : run + run)
