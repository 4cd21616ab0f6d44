// expect-error: 'list_session' does not exist
import { defineRegistry, registry } from "../../../src/tools/index.ts"

// A key that is not a manifest name.
export const tools = defineRegistry({ list_session: registry.list_sessions })
