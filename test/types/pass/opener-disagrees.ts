// Positive twin of fail/opener-disagrees.ts: a spawn row with the spawn opener.
import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

export const row = { ...manifest.create_window, opener: "spawn" } as const satisfies ManifestRow
