/** list_sessions: every session on the pinned tmux server. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { emptyWhenNoServer, listSessionRows, SessionInfo } from "../../programs/hierarchy.ts"
import { defineTool, NoInput } from "../define.ts"

/** @category tools */
export const list_sessions = defineTool(manifest.list_sessions, {
  description: "Sessions on this server's socket; empty when no tmux server runs there yet. Start here.",
  input: NoInput,
  output: Schema.Struct({
    sessions: Schema.Array(SessionInfo).annotate({ description: "every session, in tmux's order" })
  }),
  run: () => Effect.map(emptyWhenNoServer(listSessionRows), (sessions) => ({ sessions }))
})
