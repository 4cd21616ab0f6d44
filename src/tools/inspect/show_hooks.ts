/** show_hooks: the commands tmux runs on events. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { optionalSession, sessionTargetFields } from "../../programs/targets.ts"
import { TmuxObserve } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const show_hooks = defineTool(manifest.show_hooks, {
  description: "Hooks set, global or one session's: commands tmux runs on events, so a call elsewhere can trigger one.",
  input: Schema.Struct({
    ...sessionTargetFields,
    name: Schema.optionalKey(
      Schema.String.check(Schema.isMaxLength(64), Schema.isPattern(/^[a-z][a-z-]*$/u)).annotate({
        description: "one hook name, e.g. after-new-window"
      })
    )
  }),
  output: Schema.Struct({
    session_id: Schema.NullOr(Schema.String).annotate({ description: "the session read, or null for global hooks" }),
    hooks: Schema.Array(Schema.Struct({
      name: Schema.String.annotate({ description: "hook name, e.g. after-new-window" }),
      index: Schema.NullOr(Schema.Int).annotate({ description: "the hook's array index, or null" }),
      command: Schema.String.annotate({ description: "the command tmux runs" })
    })).annotate({ description: "the hooks that are set" })
  }),
  run: (input) =>
    Effect.gen(function*() {
      const session = yield* optionalSession(input)
      const tmux = yield* TmuxObserve
      const read = (flags: ReadonlyArray<string>) =>
        tmux.run([["show-hooks", ...flags, ...(input.name === undefined ? [] : ["--", input.name])]]).pipe(
          Effect.catchTag("TmuxCommandFailed", (error) =>
            (error.refusal._tag === "TooManyArguments" || error.refusal._tag === "InvalidOption") &&
              input.name !== undefined
              ? Effect.succeed("")
              : Effect.fail(error))
        )
      // tmux keeps global hooks in two trees: session and window hooks.
      const stdout = session === undefined
        ? `${yield* read(["-g"])}${yield* read(["-gw"])}`
        : yield* read(["-t", session.session_id])
      const lines = [
        ...new Set(
          stdout.split("\n").filter((line) =>
            line !== ""
          )
        )
      ]
      const hooks = lines.flatMap((line) => {
        const match = /^([a-z-]+)(?:\[(\d+)\])? (.*)$/u.exec(line)
        return match === null
          ? []
          : [{ name: match[1]!, index: match[2] === undefined ? null : Number(match[2]), command: match[3]! }]
      })
      return { session_id: session?.session_id ?? null, hooks }
    })
})
