/**
 * What a recorded call leaves in its panes' recordings (services/Recorder.ts): the panes it names,
 * its marker, and the run's end it reported. Pure: the registry asks, the recorder writes.
 */
import { callLabel } from "../domain/asciicast.ts"
import { isPaneId } from "../domain/ids.ts"
import { type ManifestRow, typesIntoPane } from "../manifest/index.ts"
import { thisTag } from "../platform/thisInstance.ts"

/** What a recorded call marks: the panes its arguments name, and its marker (`<tool> <instance>#<call>`). */
export const recordingOf = (row: ManifestRow, targets: ReadonlyArray<string>, call: number) => ({
  named: targets.filter(isPaneId),
  mark: {
    tool: row.name,
    label: callLabel(row.name, thisTag, call),
    // A manage, teardown or spawn row may change pane sizes; one that types into a pane does not.
    layout: row.toolset !== "inspect" && !typesIntoPane(row)
  }
})

/** A run's end a call reported: its pane and exit status. */
export const runEndOf = (output: Readonly<Record<string, unknown>>) =>
  typeof output.exit_status === "number" && typeof output.pane_id === "string"
    ? { pane: output.pane_id, status: output.exit_status }
    : undefined
