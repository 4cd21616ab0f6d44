import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

// An inspect row with a parameter that lands in a shell command.
// expect-error: TS1360 Type '"shell-command"' is not assignable to type 'DataSink'
export const row = { ...manifest.get_pane_info, sinks: { pane_id: "shell-command" } } as const satisfies ManifestRow
