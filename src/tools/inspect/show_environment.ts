/** show_environment: the tmux environment new panes start with. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { optionalSession, sessionTargetFields } from "../../programs/targets.ts"
import { TmuxObserve } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const show_environment = defineTool(manifest.show_environment, {
  description: "The environment tmux gives new panes, global or one session's, values as stored.",
  input: Schema.Struct({
    ...sessionTargetFields,
    name: Schema.optionalKey(
      Schema.String.check(Schema.isMaxLength(256), Schema.isPattern(/^[A-Za-z_][A-Za-z0-9_]*$/u)).annotate({
        description: "one variable name"
      })
    )
  }),
  output: Schema.Struct({
    session_id: Schema.NullOr(Schema.String).annotate({
      description: "the session read, or null for the global environment"
    }),
    variables: Schema.Array(Schema.Struct({
      name: Schema.String.annotate({ description: "variable name" }),
      value: Schema.NullOr(Schema.String).annotate({
        description: "its value as stored; null when marked to be removed from new panes"
      })
    })).annotate({ description: "the variables, in tmux's order" })
  }),
  run: (input) =>
    Effect.gen(function*() {
      const session = yield* optionalSession(input)
      const stdout = yield* (yield* TmuxObserve).run([[
        "show-environment",
        ...(session === undefined ? ["-g"] : ["-t", session.session_id]),
        ...(input.name === undefined ? [] : ["--", input.name])
      ]]).pipe(
        Effect.catchTag("TmuxCommandFailed", (error) =>
          error.refusal._tag === "UnknownVariable" ? Effect.succeed("") : Effect.fail(error))
      )
      const variables = stdout.split("\n").filter((line) =>
        line !== ""
      ).map((line) => {
        if (line.startsWith("-")) return { name: line.slice(1), value: null }
        const eq = line.indexOf("=")
        return { name: line.slice(0, eq), value: line.slice(eq + 1) }
      })
      return { session_id: session?.session_id ?? null, variables }
    })
})
