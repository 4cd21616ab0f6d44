// expect-error: Type '"pane-input"' is not assignable to type '"none"'
import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

// An inspect row that reaches a pane's program.
export const row = { ...manifest.list_sessions, reach: "pane-input" } as const satisfies ManifestRow
