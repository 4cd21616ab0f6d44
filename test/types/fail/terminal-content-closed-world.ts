// expect-error: The types of 'hints.openWorld' are incompatible
import { manifest, type OutputRules } from "../../../src/manifest/index.ts"

// An inspect row that returns terminal content but hints closed-world.
const rows = {
  capture_pane: { ...manifest.capture_pane, hints: { ...manifest.capture_pane.hints, openWorld: false } }
} as const
export const checked: OutputRules<typeof rows> = rows
