import { manifest, type OutputRules } from "../../../src/manifest/index.ts"

// An inspect row that returns terminal content under the metadata opener.
const rows = { capture_pane: { ...manifest.capture_pane, opener: "inspect-metadata" } } as const
// expect-error: TS2322 Type '"inspect-metadata"' is not assignable to type '"inspect-pane-output"'
export const checked: OutputRules<typeof rows> = rows
