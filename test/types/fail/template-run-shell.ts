import { template } from "../../../src/domain/runTemplates.ts"

// A run's template that runs a shell command on the host (shaped like the signal it may hold).
// expect-error: TS2322 Type '"run-shell"' is not assignable
export const trailer = template([["run-shell", "-S", "touch /tmp/x"]])
