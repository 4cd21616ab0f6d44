/**
 * view_pane: the pane view's poll (an MCP App, wire/PaneApp.ts). One pane's visible screen with its
 * colours and cursor, the run in front, and the session's other panes; only the digest when the view
 * already holds this frame.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { PaneId, type SessionId } from "../../domain/ids.ts"
import { blockKinds } from "../../domain/keyboard.ts"
import { digestLength, frameDigest, frameOf, type FramePane, type FrameRun } from "../../domain/paneFrame.ts"
import { paneRunOptions, protocolNames, runIdPattern } from "../../domain/protocolNames.ts"
import { parseEndRecord } from "../../domain/runPositions.ts"
import { decodeMark, decodeRecord } from "../../domain/runRecord.ts"
import { manifest } from "../../manifest/index.ts"
import { keyboardHolderOf } from "../../programs/keyboardHolder.ts"
import { readAndCapture } from "../../programs/pane.ts"
import { kernelProbe } from "../../programs/runHead.ts"
import { paneFields, reads } from "../../services/TmuxReads.ts"
import { defineTool } from "../define.ts"

const viewFields = {
  ...paneFields,
  cursor_x: "int",
  cursor_y: "int",
  cursor_flag: "bool",
  alternate_on: "bool",
  [paneRunOptions.claim]: "string",
  [paneRunOptions.last]: "string",
  [paneRunOptions.collected]: "string"
} as const

type Look = Effect.Success<ReturnType<typeof readAndCapture<typeof viewFields>>>

const Digest = Schema.String.check(Schema.isPattern(new RegExp(`^[0-9a-f]{${digestLength}}$`, "u")))

/** The pane's last collected run, as its mark says. */
const markedRun = (look: Look): FrameRun | undefined => {
  const mark = decodeMark(look.state[paneRunOptions.collected])
  return mark === undefined ? undefined : { run_id: mark.runId, state: "ended", exit_status: mark.status }
}

/**
 * The run in front: the one that holds the pane, else the last one typed and not yet collected (its
 * trailer gave the pane back, or it was released), else the pane's last collected run. `screen` is
 * the plain rows, for who holds the keyboard.
 */
const runOf = Effect.fn("view_pane.runOf")(function*(look: Look, screen: string) {
  const { state } = look
  const claim = state[paneRunOptions.claim]
  const runId = [claim, state[paneRunOptions.last]].find((id) => runIdPattern.test(id))
  if (runId === undefined) return markedRun(look)
  // The ID is checked against the run ID pattern above: nothing else reaches this format.
  const tmux = yield* reads
  const records = yield* tmux.pane(state.pane_id, {
    [paneRunOptions.record(runId)]: "string",
    [protocolNames(runId).end]: "string"
  }).pipe(Effect.orElseSucceed(() => undefined))
  const record = decodeRecord(records?.[paneRunOptions.record(runId)] ?? "")
  // Collected since the look: its mark says how it ended.
  if (record === undefined) return markedRun(look)
  const base = { run_id: runId, command: record.command.prefix }
  const end = parseEndRecord(records?.[protocolNames(runId).end] ?? "")
  if (end !== undefined) return { ...base, state: "ended", exit_status: end.status } satisfies FrameRun
  if (runId !== claim) return { ...base, state: "working" } satisfies FrameRun
  const kernel = yield* kernelProbe
  const shell = yield* kernel.shell(state.pane_pid, state.pane_tty)
  const holder = yield* keyboardHolderOf({ ...state, screen }, shell, kernel)
  return holder === undefined
    ? { ...base, state: "working" } satisfies FrameRun
    : { ...base, state: "blocked", blocked_by: { kind: holder.kind, program: holder.program } } satisfies FrameRun
})

/** The session's panes, for the view's picker. */
const panesOf = Effect.fn("view_pane.panesOf")(function*(sessionId: SessionId) {
  const tmux = yield* reads
  const panes = yield* tmux.panes({ sessionId }).pipe(Effect.orElseSucceed(() => []))
  return panes.map((pane): FramePane => ({
    pane_id: pane.pane_id,
    title: pane.pane_title,
    command: pane.pane_current_command,
    ...(pane.pane_active ? { active: true as const } : {})
  }))
})

const Run = Schema.Struct({
  run_id: Schema.String,
  state: Schema.Literals(["working", "blocked", "ended"]),
  command: Schema.optionalKey(Schema.String.annotate({ description: "the command's first characters" })),
  exit_status: Schema.optionalKey(Schema.NullOr(Schema.Int)),
  blocked_by: Schema.optionalKey(Schema.Struct({ kind: Schema.Literals(blockKinds), program: Schema.String }))
})

/** @category tools */
export const view_pane = defineTool(manifest.view_pane, {
  description: "The pane view's poll: a pane's screen as rows with style runs, its cursor, the run in front and " +
    "the session's panes; only the digest when the screen equals `since`.",
  input: Schema.Struct({
    pane_id: PaneId,
    since: Schema.optionalKey(Digest.annotate({ description: "the digest of the frame the view shows" }))
  }),
  output: Schema.Struct({
    digest: Digest,
    unchanged: Schema.optionalKey(Schema.Literal(true).annotate({ description: "the frame equals `since`" })),
    frame: Schema.optionalKey(Schema.Struct({
      pane_id: Schema.String,
      session_id: Schema.String,
      width: Schema.Int,
      height: Schema.Int,
      title: Schema.String,
      command: Schema.String,
      alternate_on: Schema.Boolean,
      cursor: Schema.Struct({ row: Schema.Int, index: Schema.Int, visible: Schema.Boolean }),
      rows: Schema.Array(Schema.String),
      styles: Schema.optionalKey(
        Schema.Array(Schema.Tuple([Schema.Int, Schema.Int, Schema.Int, Schema.String])).annotate({
          description: "[row, start, end, style] runs, indices in UTF-16 units of the row; absent: all default"
        })
      ),
      run: Schema.optionalKey(Run),
      panes: Schema.Array(Schema.Struct({
        pane_id: Schema.String,
        title: Schema.String,
        command: Schema.String,
        active: Schema.optionalKey(Schema.Literal(true).annotate({ description: "its window's active pane" }))
      }))
    }))
  }),
  run: (input) =>
    Effect.gen(function*() {
      const look = yield* readAndCapture(input.pane_id, viewFields, ["-e", "-N"])
      const source = { ...look.state, captured: look.captured.split("\n") }
      const seen = frameOf(source, yield* panesOf(look.state.session_id))
      const run = yield* runOf(look, seen.rows.join("\n"))
      const frame = run === undefined ? seen : { ...seen, run }
      const digest = frameDigest(frame)
      return digest === input.since ? { digest, unchanged: true as const } : { digest, frame }
    })
})
