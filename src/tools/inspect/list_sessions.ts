/** list_sessions: every session on the pinned tmux server. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { defineTool, NoInput } from "../define.ts"
import { emptyWhenNoServer, listSessionRows, SessionInfo } from "../hierarchy.ts"

/** @category tools */
export const list_sessions = defineTool(manifest.list_sessions, {
  description: "List every session on this server's tmux socket, with IDs, names, window counts and attached clients. " +
    "An empty list means no tmux server is running there yet (create_session starts one). " +
    "Start here, then list_windows or list_panes for the objects inside a session.",
  input: NoInput,
  output: Schema.Struct({ sessions: Schema.Array(SessionInfo).annotate({ description: "every session, in tmux's order" }) }),
  run: () => Effect.map(emptyWhenNoServer(listSessionRows), (sessions) => ({ sessions }))
})
