// Positive twin of fail/readonly-on-change.ts: a manage row that is not readOnly.
import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

export const row = {
  ...manifest.rename_window,
  hints: { ...manifest.rename_window.hints, readOnly: false }
} as const satisfies ManifestRow
