// Positive twin of fail/teardown-without-delete.ts: a teardown row that deletes.
import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

export const row = { ...manifest.kill_pane, effect: ["delete"] } as const satisfies ManifestRow
