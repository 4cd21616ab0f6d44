// Positive twin of fail/inspect-with-delete.ts: an inspect row that observes.
import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

export const row = { ...manifest.list_sessions, effect: ["observe"] } as const satisfies ManifestRow
