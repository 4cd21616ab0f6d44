import * as Effect from "effect/Effect"
import type { WindowId } from "../../../src/domain/ids.ts"
import { readPane } from "../../../src/programs/pane.ts"

// A window's ID read from tmux cannot stand where a pane's is needed.
declare const window: WindowId
// expect-error: TS2345 is not assignable to type 'Brand<"PaneId">'
export const read = Effect.asVoid(readPane(window, { pane_dead: "bool" }))
