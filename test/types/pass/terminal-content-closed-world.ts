// Positive twin of fail/terminal-content-closed-world.ts: terminal content hinted open-world.
import { manifest, type OutputRules } from "../../../src/manifest/index.ts"

const rows = {
  capture_pane: { ...manifest.capture_pane, hints: { ...manifest.capture_pane.hints, openWorld: true } }
} as const
export const checked: OutputRules<typeof rows> = rows
