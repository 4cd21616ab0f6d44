/**
 * Recordings (LIBTMUX_RECORD): each pane a call names or reaches is recorded, from the first call
 * that touches it until it goes, as asciicast v3 (domain/asciicast.ts) in the recording folder,
 * with a marker per call labelled as its audit record is numbered. A call whose pane cannot be
 * recorded while recording is on does not act, as a call whose audit record cannot be written.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/** A pane the call names could not be recorded, so the call did nothing. @category errors */
export class RecordingUnavailable extends Schema.TaggedError<RecordingUnavailable>()("RecordingUnavailable", {
  tool: Schema.String,
  pane: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.tool} did nothing: recording is on (LIBTMUX_RECORD) and pane ${this.pane} cannot be ` +
      `recorded (${this.reason}); no call acts on a pane it cannot record. Fix the recording folder, or ` +
      "start the server without LIBTMUX_RECORD, and call again"
  }
}

/** What a call did that its panes' recordings mark. @category models */
export interface CallMark {
  readonly tool: string
  /** `<tool> <instance>#<call>`, as the call's audit records name it. */
  readonly label: string
  /** Whether the call may change pane sizes (a manage, teardown or spawn tool): output waits for the sizes after it. */
  readonly layout: boolean
}

/** Where recordings go now, for `tmux://capabilities`. @category models */
export interface RecordingStatus {
  readonly folder: string
  /** Panes being recorded now. */
  readonly panes: ReadonlyArray<string>
  /** A file is closed and the next part begun once it holds this many bytes. */
  readonly part_bytes: number
  /** The newest parts of a pane's recording kept; older ones are deleted. */
  readonly parts_kept: number
}

/** The recordings of the panes calls touch. @category services */
export class Recorder extends Context.Service<Recorder, {
  /** Whether recording is on: when off, dispatch asks nothing of it. */
  readonly on: boolean
  /**
   * Before a call acts: each pane it names that is not recorded yet starts its recording, and each
   * gets the call's marker. Fails, and the call must not act, when one cannot be recorded; a pane
   * that does not exist is left to the call's own error.
   */
  before(panes: ReadonlyArray<string>, mark: CallMark): Effect.Effect<void, RecordingUnavailable>
  /**
   * After a call: panes it reached that it did not name (one it made) are recorded from now, with
   * its marker; a run's exit status it reports is marked on its pane. Best effort: it never fails.
   */
  after(
    named: ReadonlyArray<string>,
    reached: ReadonlyArray<string>,
    mark: CallMark,
    ended: { readonly pane: string; readonly status: number } | undefined
  ): Effect.Effect<void>
  /** `null` when recording is off. */
  readonly status: Effect.Effect<RecordingStatus | null>
}>()("libtmux-mcp/services/Recorder") {}

/** Recording off: nothing is recorded, and dispatch asks nothing. @category constructors */
export const recordingOff: Recorder["Service"] = Recorder.of({
  on: false,
  before: () => Effect.void,
  after: () => Effect.void,
  status: Effect.succeed(null)
})
