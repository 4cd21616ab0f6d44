/** show_option: the value of one tmux option at one scope. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { PaneId, WindowId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { orPaneNotFound } from "../../programs/pane.ts"
import { resolveSession, resolveWindow, sessionTargetFields } from "../../programs/targets.ts"
import { ArgumentProblem, type TmuxCommandFailed } from "../../services/errors.ts"
import { TmuxObserve } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const show_option = defineTool(manifest.show_option, {
  description: "One tmux option's value (@options too), global or as a session, window or pane sees it.",
  input: Schema.Struct({
    scope: Schema.Literals(["server", "session", "window", "pane"]).annotate({ description: "where the option lives" }),
    name: Schema.String.check(Schema.isMaxLength(128), Schema.isPattern(/^@?[A-Za-z][A-Za-z0-9_-]*(\[\d{1,5}\])?$/u))
      .annotate({
        description: "e.g. history-limit, @my_option, terminal-features[0]"
      }),
    global: Schema.optionalKey(
      Schema.Boolean.annotate({ description: "the scope's global value (server options always are)" })
    ),
    ...sessionTargetFields,
    window_id: Schema.optionalKey(WindowId),
    pane_id: Schema.optionalKey(PaneId)
  }),
  output: Schema.Struct({
    scope: Schema.String.annotate({ description: "the scope asked for" }),
    name: Schema.String.annotate({ description: "the option's name" }),
    value: Schema.NullOr(Schema.String).annotate({ description: "null when the option is not set" })
  }),
  run: (input) =>
    Effect.gen(function*() {
      const given = [input.session_id ?? input.session_name, input.window_id, input.pane_id].filter((target) =>
        target !== undefined
      ).length
      const wanted = input.scope === "server" || input.global === true ? 0 : 1
      const problem = (detail: string) =>
        new ArgumentProblem({ detail })
      if (given !== wanted) {
        return yield* problem(
          wanted === 0
            ? "server options and global values take no target"
            : `give the ${input.scope} to read from (${
              input.scope === "session" ? "session_id or session_name" : `${input.scope}_id`
            }), or global true`
        )
      }
      let target: ReadonlyArray<string> = []
      if (wanted === 1) {
        if (input.scope === "session" && (input.session_id !== undefined || input.session_name !== undefined)) {
          target = ["-t", (yield* resolveSession(input)).session_id]
        } else if (input.scope === "window" && input.window_id !== undefined) {
          target = ["-t", (yield* resolveWindow({ window_id: input.window_id })).window_id]
        } else if (input.scope === "pane" && input.pane_id !== undefined) {
          target = ["-t", input.pane_id]
        } else return yield* problem(`the target does not fit scope ${input.scope}`)
      }
      const scopeFlag = { server: ["-s"], session: [], window: ["-w"], pane: ["-p"] }[input.scope]
      const stdout = yield* (yield* TmuxObserve).run([[
        "show-options",
        "-v",
        ...(input.global === true && input.scope !== "server" ? ["-g"] : []),
        ...(wanted === 1 ? ["-A"] : []),
        ...scopeFlag,
        ...target,
        "--",
        input.name
      ]]).pipe(
        (effect) => input.pane_id === undefined ? effect : orPaneNotFound(input.pane_id)(effect),
        Effect.catchTag("TmuxCommandFailed", (error): Effect.Effect<string, ArgumentProblem | TmuxCommandFailed> =>
          // An unset user option reads as "invalid option"; a user option may be set later, so it is just unset.
          input.name.startsWith("@") && error.refusal._tag === "InvalidOption"
            ? Effect.succeed("")
            : ["InvalidOption", "UnknownOption", "AmbiguousOption"].includes(error.refusal._tag)
            ? Effect.fail(problem(`${input.name} is not a ${input.scope} option (${error.stderr})`))
            : Effect.fail(error))
      )
      return { scope: input.scope, name: input.name, value: stdout === "" ? null : stdout.replace(/\n$/u, "") }
    })
})
