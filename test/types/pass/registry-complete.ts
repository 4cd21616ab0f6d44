// Positive twin of fail/registry-missing-tool.ts.
import { defineRegistry, registry } from "../../../src/tools/index.ts"

export const tools = defineRegistry({ ...registry })
