// expect-error: Type '"delete"' is not assignable to type '"observe"'
import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

// An inspect row whose tmux effect deletes.
export const row = { ...manifest.list_sessions, effect: ["delete"] } as const satisfies ManifestRow
