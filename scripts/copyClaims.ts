/**
 * The copy lint: no affirmative sandbox or containment claim in code, tool descriptions or docs.
 * Negative boundary statements ("not an OS sandbox") and honest technical ones ("no shell string
 * is built") are allowed by an explicit, reviewed list of phrases, matched before the claims are;
 * MIGRATION.md and CHANGES.md are exempt because they must name what they replace.
 */

/** Words and phrases that claim a guarantee this server does not give. */
export const claims: ReadonlyArray<RegExp> = [
  /safety[ -](tier|level|mode)s?/giu,
  /secure[ -]mode/giu,
  /safe[ -](command|mode|tool)s?/giu,
  /sandbox(ed|ing|es)?/giu,
  /containment/giu,
  /confine(s|d|ment)?\b/giu,
  /\bno[ -]shell\b/giu
]

/** Reviewed negative or technical phrases that may contain a claim word. */
export const allowed: ReadonlyArray<RegExp> = [
  /\bnot (an? )?(OS|operating[- ]system) sandbox\b/giu,
  /\bnot a sandbox\b/giu,
  /\bno sandbox\b/giu,
  /\bnot (a |an )?(containment|confinement)( (tool|boundary|mechanism))?\b/giu,
  /\bis not containment\b/giu,
  /\bneither (is|gives) containment\b/giu,
  /\bdoes not confine\b/giu,
  /\bcannot confine\b/giu,
  /\bno shell string\b/giu,
  /\bno shell variable\b/giu,
  /\bno shell is involved\b/giu,
  /\(no shell\)/giu,
  /\bsandbox\/containment wording\b/giu
]

/** The claims left in one line once the allowed phrases are taken out. */
export const claimsIn = (line: string): ReadonlyArray<string> => {
  let rest = line
  for (const phrase of allowed) rest = rest.replace(phrase, " ")
  return claims.flatMap((claim) => [...rest.matchAll(claim)].map((match) => match[0]))
}

/** Files the lint skips: the ones that must name what they replace, and itself. */
export const exempt = (path: string): boolean =>
  /(^|\/)(MIGRATION|CHANGES)\.md$/u.test(path) || /^scripts\/copy(-lint|Claims)\.ts$/u.test(path) ||
  path.startsWith("test/")
