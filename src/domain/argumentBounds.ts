/**
 * The shape bounds of a call's arguments, checked before anything decodes them: no tool's input
 * schema takes more values, deeper nesting or a longer array (test/unit/argumentBounds.test.ts
 * holds every schema to them), so arguments over them are refused unread, at a cost bounded by
 * the limits rather than by the input. The stdin framing applies the same bounds to a line's
 * `params.arguments` as it streams in (src/wire/LineShape.ts), before the line is parsed at all.
 */

/** The limits: values counts every property and array item at any depth; the arguments object is depth 1. */
export const argumentBounds = { values: 1024, depth: 8, items: 32 } as const

/** Which bound arguments broke. @category models */
export type BoundBroken = keyof typeof argumentBounds

/** The refusal's detail: what was over which limit. */
export const boundProblem = (broken: BoundBroken): string => {
  switch (broken) {
    case "values":
      return `refused before decoding: the arguments hold more than ${argumentBounds.values} properties and ` +
        "array items (counted at any depth); no tool takes more"
    case "depth":
      return `refused before decoding: the arguments nest deeper than ${argumentBounds.depth} levels ` +
        "(the arguments object is level 1); no tool takes deeper"
    case "items":
      return `refused before decoding: an array in the arguments has more than ${argumentBounds.items} items; ` +
        "no tool takes more"
  }
}

/** Arguments the stdin framing refused without parsing them: they stand for the arguments in dispatch. */
export class UnreadArguments {
  readonly broken: BoundBroken
  constructor(broken: BoundBroken) {
    this.broken = broken
  }
}

/** The bound the arguments break, or undefined. Stops at the first break: the walk is bounded by the limits. */
export const brokenBound = (args: unknown): BoundBroken | undefined => {
  if (args instanceof UnreadArguments) return args.broken
  let values = 0
  const visit = (value: unknown, depth: number): BoundBroken | undefined => {
    if (value === null || typeof value !== "object") return undefined
    if (depth > argumentBounds.depth) return "depth"
    // In the order the framing's scan meets them, so both name the same bound.
    if (Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        if (++values > argumentBounds.values) return "values"
        if (index >= argumentBounds.items) return "items"
        const broken = visit(value[index], depth + 1)
        if (broken !== undefined) return broken
      }
      return undefined
    }
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue
      if (++values > argumentBounds.values) return "values"
      const broken = visit((value as Record<string, unknown>)[key], depth + 1)
      if (broken !== undefined) return broken
    }
    return undefined
  }
  return visit(args, 1)
}
