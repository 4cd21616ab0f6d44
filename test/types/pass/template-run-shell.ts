// Positive twin of fail/template-run-shell.ts.
import { template } from "../../../src/domain/runTemplates.ts"

export const trailer = template([["wait-for", "-S", "lmcp_a1b2c3"]])
