// Positive twin of fail/inspect-opener-not-output.ts: the opener of the worst output class.
import { manifest, type OutputRules } from "../../../src/manifest/index.ts"

const rows = { capture_pane: { ...manifest.capture_pane, opener: "inspect-pane-output" } } as const
export const checked: OutputRules<typeof rows> = rows
