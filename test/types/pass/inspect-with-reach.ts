// Positive twin of fail/inspect-with-reach.ts: an inspect row that reaches no process.
import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

export const row = { ...manifest.list_sessions, reach: "none" } as const satisfies ManifestRow
