/** get_server_info: whether a tmux server runs on the pinned socket, and what it is. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { formatSelector } from "../../domain/socket.ts"
import { manifest } from "../../manifest/index.ts"
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
    start_time: Schema.optionalKey(Schema.Int.annotate({ description: "server start, seconds since the epoch" }))
  }),
  run: () =>
    Effect.gen(function*() {
      const pin = yield* SocketPin
      const tmux = yield* reads
      const base = { socket: formatSelector(pin.selector), socket_path: pin.resolvedPath }
      const rows = yield* tmux.server().pipe(Effect.catchTag("ServerNotRunning", () => Effect.succeed(undefined)))
      if (rows === undefined) return { ...base, running: false, session_count: 0 }
      const [first] = rows
      if (first === undefined) return { ...base, running: true, session_count: 0 }
      return {
        ...base,
        socket_path: first.socket_path,
        running: true,
        session_count: rows.length,
        pid: first.pid,
        version: first.version,
        start_time: first.start_time
      }
    })
})
