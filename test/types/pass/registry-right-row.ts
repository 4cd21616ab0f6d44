// Positive twin of fail/registry-wrong-row.ts.
import { defineRegistry, registry } from "../../../src/tools/index.ts"

export const tools = defineRegistry({ ...registry, list_windows: registry.list_windows })
