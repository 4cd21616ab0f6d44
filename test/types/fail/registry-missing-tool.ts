import { defineRegistry, registry } from "../../../src/tools/index.ts"

// A registry without one of the manifest's tools.
const { kill_session: _dropped, ...incomplete } = registry
// expect-error: TS2345 Property 'kill_session' is missing
export const tools = defineRegistry(incomplete)
