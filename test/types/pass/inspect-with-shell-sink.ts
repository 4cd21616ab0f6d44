// Positive twin of fail/inspect-with-shell-sink.ts: an inspect row whose parameter is a tmux lookup.
import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

export const row = { ...manifest.get_pane_info, sinks: { pane_id: "tmux-lookup" } } as const satisfies ManifestRow
