import { type Moves, moves, type RunEvent } from "../../../src/domain/runMachine.ts"

// The machine's events, grown by one that has no move yet.
type Grown = RunEvent | { readonly _tag: "Rewound" }
// expect-error: TS2741 Property 'Rewound' is missing
export const grown: Moves<Grown> = moves
