/** rename_session: give a session a new, literal name. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { literalizeFormat } from "../../domain/names.ts"
import { manifest } from "../../manifest/index.ts"
import { SessionExists } from "../../services/errors.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"
import { listSessionRows, SessionInfo } from "../hierarchy.ts"
import { Name, resolveSession, sessionTargetFields } from "../targets.ts"

/** @category tools */
export const rename_session = defineTool(manifest.rename_session, {
  description: "Rename a session (session_id or exact session_name). The new name is stored exactly as given (tmux " +
    "would otherwise expand #{...} and run #(...) in it) and must not be taken by another session.",
  input: Schema.Struct({ ...sessionTargetFields, new_name: Name("the new session name") }),
  output: SessionInfo,
  run: (input) =>
    Effect.gen(function*() {
      const session = yield* resolveSession("rename_session", input)
      const sessions = yield* listSessionRows
      if (sessions.some((other) => other.session_name === input.new_name && other.session_id !== session.session_id)) {
        return yield* new SessionExists({ name: input.new_name })
      }
      yield* (yield* TmuxChange).run([["rename-session", "-t", session.session_id, "--", literalizeFormat(input.new_name)]])
      return yield* resolveSession("rename_session", { session_id: session.session_id })
    })
})
