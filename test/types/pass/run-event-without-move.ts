// Positive twin of fail/run-event-without-move.ts.
import { type Moves, moves, type RunEvent } from "../../../src/domain/runMachine.ts"

export const same: Moves<RunEvent> = moves
