// expect-error: Type '"shell-command"' is not assignable to type 'DataSink'
import { manifest, type ManifestRow } from "../../../src/manifest/index.ts"

// An inspect row with a parameter that lands in a shell command.
export const row = { ...manifest.get_pane_info, sinks: { pane_id: "shell-command" } } as const satisfies ManifestRow
