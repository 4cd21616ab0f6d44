// expect-error: is not assignable to type 'never'
import { defineRegistry, registry } from "../../../src/tools/index.ts"

// A key that is not a manifest name.
export const tools = defineRegistry({ ...registry, list_session: registry.list_sessions })
