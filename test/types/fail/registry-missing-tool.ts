// expect-error: Property 'kill_session' is missing
import { defineRegistry, registry } from "../../../src/tools/index.ts"

// A registry without one of the manifest's tools.
const { kill_session: _dropped, ...incomplete } = registry
export const tools = defineRegistry(incomplete)
