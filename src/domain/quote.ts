/**
 * Quoting for text a person pastes into a POSIX shell, for the remote command ssh hands to a
 * login shell of any kind, and for `key=value` records.
 */

/** Single-quotes a word for a POSIX shell unless it is made only of safe characters. */
export const shellQuote = (word: string): string =>
  /^[A-Za-z0-9_@%+=:,./-]+$/u.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`

/**
 * Why a word cannot be quoted for every common login shell, or `undefined` when it can. Security:
 * inside single quotes sh, bash, zsh and dash take a backslash as it is, but fish reads `\'` as a
 * quote that does not end the string, so a backslash would let the rest of the word out there;
 * control characters (newline, NUL ...) are refused as well.
 */
export const remoteShellProblem = (word: string): string | undefined =>
  word.includes("\\")
    ? "a backslash, which fish and POSIX shells read differently inside quotes"
    // oxlint-disable-next-line no-control-regex -- control characters are what it refuses
    : /[\u0000-\u001f\u007f]/u.test(word)
    ? "a control character (a newline, a tab, NUL ...)"
    : undefined

/**
 * Single-quotes a word so that sh, bash, zsh, dash and fish all read it as the same one word: a
 * quote inside becomes `'"'"'` (end the quotes, a double-quoted quote, quote again), which each of
 * them reads alike. Only for words `remoteShellProblem` accepts; the result holds no backslash, so
 * it can be quoted again as one word (a command line that ssh hands to the remote shell).
 */
export const remoteShellQuote = (word: string): string => `'${word.replaceAll("'", `'"'"'`)}'`

/** A `key=value` pair; a value with spaces, quotes or control characters is JSON-quoted. */
export const recordPair = (key: string, value: string | number | boolean): string => {
  const text = String(value)
  // oxlint-disable-next-line no-control-regex -- control characters are what forces the quoting
  return `${key}=${/^[^\s"'\\\u0000-\u001f]*$/u.test(text) && text !== "" ? text : JSON.stringify(text)}`
}

/** `tmux -N -S <path> attach`: `-N` so watching before the first session never starts a server. */
export const attachCommandFor = (socketPath: string): string => `tmux -N -S ${shellQuote(socketPath)} attach`
