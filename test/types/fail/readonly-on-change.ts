// expect-error: Types of property 'readOnly' are incompatible
import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

// A manage row, which changes tmux state, hinted readOnly.
export const row = {
  ...manifest.rename_window,
  hints: { ...manifest.rename_window.hints, readOnly: true }
} as const satisfies ManifestRow
