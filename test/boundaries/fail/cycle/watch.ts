// expect-violation: import-cycle
// The other half of the circle (a type-only import counts too).
import type { Look } from "./looks.ts"

/** @category models */
export interface Watch {
  readonly last: Look | undefined
}
