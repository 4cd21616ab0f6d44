// expect-error: Type '"list_sessions"' is not assignable to type '"list_windows"'
import { defineRegistry, registry } from "../../../src/tools/index.ts"

// A definition filed under another tool's name.
export const tools = defineRegistry({ ...registry, list_windows: registry.list_sessions })
