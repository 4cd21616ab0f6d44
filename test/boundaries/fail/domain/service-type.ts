// expect-violation: domain-depends-upward
// A domain module that takes a type from a service contract above it.
import type { Run } from "../../../../src/services/ShellRuns.ts"

export const idOf = (run: Run) => run.id
