// expect-violation: import-cycle
// A module whose type its importer defines: the two import each other.
import type { Watch } from "./watch.ts"

/** @category models */
export interface Look {
  readonly watch: Watch
}
