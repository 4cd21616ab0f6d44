/** get_server_info: whether a tmux server runs on the pinned socket, and what it is. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { formatSelector } from "../../domain/socket.ts"
import { manifest } from "../../manifest/index.ts"
import { usually } from "../../programs/usual.ts"
import { SocketPin } from "../../services/SocketPin.ts"
import { reads } from "../../services/TmuxReads.ts"
import { defineTool, NoInput } from "../define.ts"

/** @category tools */
export const get_server_info = defineTool(manifest.get_server_info, {
  description: "Whether a tmux server runs on the pinned socket, and its details. Never starts one.",
  input: NoInput,
  output: Schema.Struct({
    running: Schema.Boolean.annotate({ description: "whether a tmux server answers on the socket" }),
    socket: Schema.String.annotate({ description: "the pinned socket selector: name:<name>, inherit, or path:<path>" }),
    socket_path: Schema.String.annotate({ description: "the socket file's resolved path" }),
    session_count: Schema.Int.annotate({ description: "number of sessions (0 when not running)" }),
    pid: Schema.optionalKey(Schema.Int.annotate({ description: "the tmux server's process ID, when running" })),
    version: Schema.optionalKey(Schema.String.annotate({ description: "the tmux server's version, when running" })),
    start_time: Schema.optionalKey(Schema.Int.annotate({ description: "server start, seconds since the epoch" })),
    held_runs: usually(
      Schema.Array(Schema.Struct({
        pane_id: Schema.String.annotate({ description: "the pane it was typed in" }),
        run_id: Schema.String.annotate({ description: "pass it to run_shell_command as resume, with pane_id" }),
        command_prefix: Schema.String.annotate({ description: "the start of the command it runs" }),
        command_digest: Schema.String.annotate({ description: "sha256 of the command, first 12 hex digits" }),
        holds_pane: Schema.Boolean.annotate({ description: "its status report has not come: new runs there wait" }),
        exit_status: Schema.NullOr(Schema.Int).annotate({ description: "its exit status, once reported" })
      })).annotate({
        description: "run_shell_command runs not yet collected (timed out, blocked or cancelled), typed by any " +
          "server on this socket"
      }),
      [],
      "none (or the tmux server is not running)"
    ),
    collected_runs: usually(
      Schema.Array(Schema.Struct({
        pane_id: Schema.String.annotate({ description: "the pane it ran in" }),
        run_id: Schema.String.annotate({ description: "the run" }),
        exit_status: Schema.NullOr(Schema.Int).annotate({
          description: "its exit status (the shell's when it ended the shell); null when it never reported one"
        }),
        ended: Schema.Literals(["reported", "unreported", "shell-exited"]).annotate({
          description: "reported (its status report came), unreported (interrupted) or shell-exited"
        }),
        collected_by: Schema.Int.annotate({ description: "the process ID of the server that returned its result" }),
        collected_at: Schema.String.annotate({ description: "when, as an ISO 8601 time" })
      })).annotate({
        description: "the last run_shell_command run collected in each pane: its result already went to an answer " +
          "(what a resume of it is told)"
      }),
      [],
      "none (or the tmux server is not running)"
    )
  }),
  run: () =>
    Effect.gen(function*() {
      const pin = yield* SocketPin
      const tmux = yield* reads
      const base = { socket: formatSelector(pin.selector), socket_path: pin.resolvedPath }
      const rows = yield* tmux.server().pipe(Effect.catchTag("ServerNotRunning", () => Effect.succeed(undefined)))
      if (rows === undefined) return { ...base, running: false, session_count: 0, held_runs: [], collected_runs: [] }
      const [first] = rows
      if (first === undefined) return { ...base, running: true, session_count: 0, held_runs: [], collected_runs: [] }
      return {
        ...base,
        held_runs: yield* tmux.heldRuns(),
        collected_runs: yield* tmux.collectedRuns(),
        socket_path: first.socket_path,
        running: true,
        session_count: rows.length,
        pid: first.pid,
        version: first.version,
        start_time: first.start_time
      }
    }),
  // A hub adds every host's state: what only it sees.
  hub: { answer: (answer, hub) => Effect.map(hub.hosts, (hosts) => ({ ...answer, hosts })) }
})
