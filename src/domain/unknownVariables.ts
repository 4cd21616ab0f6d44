/**
 * A `LIBTMUX_*` variable the server does not read is most often a misspelling of one it does: it
 * would be ignored without a word, and the server would run with the default instead. Each gets a
 * startup warning naming the nearest real variable.
 */
import { recordPair } from "./quote.ts"

/** Levenshtein distance: insertions, deletions and substitutions, each costing one. */
export const editDistance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        previous[j]! + 1,
        current[j - 1]! + 1,
        previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)
      )
    }
    previous = current
  }
  return previous[b.length]!
}

/** The known variable nearest to `name` (the first of equals, in the order given). */
export const nearest = (name: string, known: ReadonlyArray<string>): string | undefined =>
  known.reduce<{ readonly name: string; readonly distance: number } | undefined>((best, candidate) => {
    const distance = editDistance(name, candidate)
    return best === undefined || distance < best.distance ? { name: candidate, distance } : best
  }, undefined)?.name

/**
 * One warning line per `LIBTMUX_*` variable in the environment that is not in `known`; `suggest`
 * is the set a suggestion is drawn from (the variables still read).
 */
export const unknownVariableWarnings = (
  env: Readonly<Record<string, string | undefined>>,
  known: ReadonlyArray<string>,
  suggest: ReadonlyArray<string>
): Array<string> =>
  Object.keys(env).filter((name) => name.startsWith("LIBTMUX_") && !known.includes(name)).sort().map((name) =>
    [
      "libtmux-mcp warning:",
      recordPair("variable", name),
      recordPair(
        "note",
        `libtmux-mcp does not read ${name}, so it has no effect; did you mean ${nearest(name, suggest)}?`
      )
    ].join(" ")
  )
