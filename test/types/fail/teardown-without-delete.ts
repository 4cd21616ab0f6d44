import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

// A teardown row whose effect does not delete.
// expect-error: TS1360 Type '"change"' is not assignable to type '"delete"'
export const row = { ...manifest.kill_pane, effect: ["change"] } as const satisfies ManifestRow
