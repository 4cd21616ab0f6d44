// expect-error: Type '"inspect-metadata"' is not assignable to type '"inspect-pane-output"'
import { manifest, type OutputRules } from "../../../src/manifest/index.ts"

// An inspect row that returns terminal content under the metadata opener.
const rows = { capture_pane: { ...manifest.capture_pane, opener: "inspect-metadata" } } as const
export const checked: OutputRules<typeof rows> = rows
