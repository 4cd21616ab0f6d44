import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

// A configured-process spawn row with the manage opener.
// expect-error: TS1360 Type '"manage"' is not assignable to type '"spawn"'
export const row = { ...manifest.create_window, opener: "manage" } as const satisfies ManifestRow
