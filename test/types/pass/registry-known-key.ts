// Positive twin of fail/registry-unknown-key.ts.
import { defineRegistry, registry } from "../../../src/tools/index.ts"

export const tools = defineRegistry({ ...registry, list_sessions: registry.list_sessions })
