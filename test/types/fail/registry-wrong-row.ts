import { defineRegistry, registry } from "../../../src/tools/index.ts"

// A definition filed under another tool's name.
// expect-error: TS2375 Type '"list_sessions"' is not assignable to type '"list_windows"'
export const tools = defineRegistry({ ...registry, list_windows: registry.list_sessions })
