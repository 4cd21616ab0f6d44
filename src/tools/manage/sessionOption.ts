/**
 * The typed session-option setters share their target: one session (by ID or exact name), or the
 * global value that sessions without their own inherit.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { resolveSession, sessionTargetFields } from "../../programs/targets.ts"
import { ArgumentProblem } from "../../services/errors.ts"

/** Target fields of a session-option setter. @category schemas */
export const optionTargetFields = {
  ...sessionTargetFields,
  global: Schema.optionalKey(Schema.Boolean.annotate({ description: "set the global value, not one session's" }))
}

/** The `set-option` target flags: `-t <session>` or `-g`. */
export const optionTarget = (
  input: { readonly session_id?: string; readonly session_name?: string; readonly global?: boolean }
) =>
  Effect.gen(function*() {
    const bySession = input.session_id !== undefined || input.session_name !== undefined
    if (bySession === (input.global === true)) {
      return yield* new ArgumentProblem({
        detail: "give a session (session_id or session_name) or global true, one of them"
      })
    }
    if (!bySession) return { flags: ["-g"], session_id: null }
    const session = yield* resolveSession(input)
    return { flags: ["-t", session.session_id], session_id: session.session_id }
  })
