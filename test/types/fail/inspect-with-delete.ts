import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

// An inspect row whose tmux effect deletes.
// expect-error: TS1360 Type '"delete"' is not assignable to type '"observe"'
export const row = { ...manifest.list_sessions, effect: ["delete"] } as const satisfies ManifestRow
