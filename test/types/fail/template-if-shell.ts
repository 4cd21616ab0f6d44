import { template } from "../../../src/domain/runTemplates.ts"

// A run's template whose if-shell runs a command of its own choosing: only the answered test's is typed.
// expect-error: TS2322 Type 'string' is not assignable
export const trailer = template([["if-shell", "-F", "1", "run-shell 'touch /tmp/x'"]])
