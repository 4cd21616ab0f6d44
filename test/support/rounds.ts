/**
 * How many rounds a race or a burst runs: `npm test` runs enough to show the behaviour, and
 * `npm run test:long` (LIBTMUX_TEST_LONG=1) the full counts the issues measured, which take minutes.
 */
export const longRounds = process.env.LIBTMUX_TEST_LONG === "1"

/** `everyday` rounds in `npm test`, `long` in `npm run test:long`. */
export const rounds = (everyday: number, long: number): number => longRounds ? long : everyday
