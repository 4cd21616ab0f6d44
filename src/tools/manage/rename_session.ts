/** rename_session: give a session a new, literal name. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { literalizeFormat } from "../../domain/names.ts"
import { manifest } from "../../manifest/index.ts"
import { SessionInfo } from "../../programs/hierarchy.ts"
import { findSession, Name, resolveSession, sessionTargetFields } from "../../programs/targets.ts"
import { SessionExists } from "../../services/errors.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { decode, readBack } from "../../services/TmuxReads.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const rename_session = defineTool(manifest.rename_session, {
  description: "Rename a session; stored literally, must be free.",
  input: Schema.Struct({ ...sessionTargetFields, new_name: Name("the new session name") }),
  output: SessionInfo,
  run: (input) =>
    Effect.gen(function*() {
      const { session, sessions } = yield* findSession(input)
      if (sessions.some((other) => other.session_name === input.new_name && other.session_id !== session.session_id)) {
        return yield* new SessionExists({ name: input.new_name })
      }
      // Rename and read back in one invocation.
      const stdout = yield* (yield* TmuxChange).run([
        ["rename-session", "-t", session.session_id, "--", literalizeFormat(input.new_name)],
        readBack.sessions()
      ])
      const renamed = (yield* decode.sessions(stdout)).find((row) => row.session_id === session.session_id)
      return renamed ?? (yield* resolveSession({ session_id: session.session_id }))
    })
})
