import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

// A manage row, which changes tmux state, hinted readOnly.
export const row = {
  ...manifest.rename_window,
  // expect-error: TS2322 Types of property 'readOnly' are incompatible
  hints: { ...manifest.rename_window.hints, readOnly: true }
} as const satisfies ManifestRow
