import { manifest, type OutputRules } from "../../../src/manifest/index.ts"

// An inspect row that returns terminal content but hints closed-world.
const rows = {
  capture_pane: { ...manifest.capture_pane, hints: { ...manifest.capture_pane.hints, openWorld: false } }
} as const
// expect-error: TS2322 The types of 'hints.openWorld' are incompatible
export const checked: OutputRules<typeof rows> = rows
