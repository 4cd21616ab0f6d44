import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

// A teardown row without the destructive hint.
export const row = {
  ...manifest.kill_pane,
  hints: { ...manifest.kill_pane.hints, destructive: false }
  // expect-error: TS1360 Types of property 'destructive' are incompatible
} as const satisfies ManifestRow
