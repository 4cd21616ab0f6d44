// Positive twin of fail/teardown-not-destructive.ts: a teardown row hinted destructive.
import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

export const row = {
  ...manifest.kill_pane,
  hints: { ...manifest.kill_pane.hints, destructive: true }
} as const satisfies ManifestRow
