/** wait_for_channel: block (bounded) until a tmux wait-for channel is signalled. */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { TmuxChange, TmuxObserve } from "../../services/Tmux.ts"
import { Channel } from "../channel.ts"
import { defineTool } from "../define.ts"
import { effectiveTimeout, timeoutField, withProgress } from "../waiting.ts"

/** @category tools */
export const wait_for_channel = defineTool(manifest.wait_for_channel, {
  description: "Wait until a tmux wait-for channel is signalled, for example by a command you typed that ends with " +
    "`; tmux wait-for -S NAME`, or by signal_channel. Bounded by timeout and the server's ceiling; on timeout it " +
    "returns outcome timeout. A signal sent before anyone waits is kept by tmux, and this wait consumes it. " +
    "For a shell command's output and exit status, run_shell_command does all of this in one call.",
  input: Schema.Struct({
    channel: Channel,
    timeout: timeoutField
  }),
  output: Schema.Struct({
    channel: Schema.String,
    outcome: Schema.Literals(["signalled", "timeout"]),
    elapsed_seconds: Schema.Finite,
    effective_timeout: Schema.Finite
  }),
  run: (input) =>
    Effect.gen(function*() {
      const timeout = yield* effectiveTimeout(input.timeout)
      const started = yield* Clock.currentTimeMillis
      const tmux = yield* TmuxChange
      const outcome = yield* withProgress(timeout, `waiting for channel ${input.channel}`, tmux.run([["wait-for", input.channel]], { timeoutMs: timeout * 1000 })).pipe(
        Effect.as("signalled" as const),
        Effect.catchTag("TmuxTimedOut", () => Effect.succeed("timeout" as const))
      )
      // tmux also ends a wait when its server exits: make sure the server is still there.
      if (outcome === "signalled") yield* (yield* TmuxObserve).run([["list-sessions", "-F", "#{session_id}"]])
      return {
        channel: input.channel,
        outcome,
        elapsed_seconds: ((yield* Clock.currentTimeMillis) - started) / 1000,
        effective_timeout: timeout
      }
    })
})
