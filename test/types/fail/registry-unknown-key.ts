import { defineRegistry, registry } from "../../../src/tools/index.ts"

// A key that is not a manifest name.
// expect-error: TS2322 is not assignable to type 'never'
export const tools = defineRegistry({ ...registry, list_session: registry.list_sessions })
