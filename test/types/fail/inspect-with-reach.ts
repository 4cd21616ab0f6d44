import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

// An inspect row that reaches a pane's program.
// expect-error: TS1360 Type '"pane-input"' is not assignable to type '"none"'
export const row = { ...manifest.list_sessions, reach: "pane-input" } as const satisfies ManifestRow
