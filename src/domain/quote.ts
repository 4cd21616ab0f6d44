/**
 * Quoting for text a person pastes into a POSIX shell, and for `key=value` records.
 */

/** Single-quotes a word for a POSIX shell unless it is made only of safe characters. */
export const shellQuote = (word: string): string =>
  /^[A-Za-z0-9_@%+=:,./-]+$/u.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`

/** A `key=value` pair; a value with spaces, quotes or control characters is JSON-quoted. */
export const recordPair = (key: string, value: string | number | boolean): string => {
  const text = String(value)
  // oxlint-disable-next-line no-control-regex -- control characters are what forces the quoting
  return `${key}=${/^[^\s"'\\\u0000-\u001f]*$/u.test(text) && text !== "" ? text : JSON.stringify(text)}`
}
