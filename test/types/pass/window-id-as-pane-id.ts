import * as Effect from "effect/Effect"
import type { PaneId } from "../../../src/domain/ids.ts"
import { readPane } from "../../../src/programs/pane.ts"

// A pane's ID is what a pane read takes.
declare const pane: PaneId
export const read = Effect.asVoid(readPane(pane, { pane_dead: "bool" }))
