/** wait_for_channel: block (bounded) until a tmux wait-for channel is signalled. */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { CallContext } from "../../services/CallContext.ts"
import { Config } from "../../services/Config.ts"
import { ServerNotRunning } from "../../services/errors.ts"
import { SocketPin } from "../../services/SocketPin.ts"
import { TmuxChange, TmuxObserve } from "../../services/Tmux.ts"
import { formatSelector } from "../../domain/socket.ts"
import { Channel } from "../channel.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const wait_for_channel = defineTool(manifest.wait_for_channel, {
  description: "Wait until a tmux wait-for channel is signalled, for example by a command you typed that ends with " +
    "`; tmux wait-for -S NAME`, or by signal_channel. Bounded by timeout and the server's ceiling; on timeout it " +
    "returns outcome timeout. A signal sent before anyone waits is kept by tmux, and this wait consumes it. " +
    "For a shell command's output and exit status, run_shell_command does all of this in one call.",
  input: Schema.Struct({
    channel: Channel,
    timeout: Schema.optionalKey(Schema.Finite.check(Schema.isGreaterThan(0), Schema.isLessThanOrEqualTo(86_400)).annotate({
      description: "seconds to wait (default 30); above the server's ceiling it is clamped, and the value used is reported"
    }))
  }),
  output: Schema.Struct({
    channel: Schema.String,
    outcome: Schema.Literals(["signalled", "timeout"]),
    elapsed_seconds: Schema.Finite,
    effective_timeout: Schema.Finite
  }),
  run: (input) =>
    Effect.gen(function*() {
      const { config } = yield* Config
      const callContext = yield* CallContext
      const effectiveTimeout = Math.min(input.timeout ?? 30, config.waitMaxSeconds)
      const started = yield* Clock.currentTimeMillis
      const progress = yield* Effect.forkChild(
        Effect.gen(function*() {
          const elapsed = ((yield* Clock.currentTimeMillis) - started) / 1000
          yield* callContext.progress(elapsed, effectiveTimeout, `waiting for channel ${input.channel}`)
        }).pipe(Effect.repeat(Schedule.spaced("1 second")))
      )
      const tmux = yield* TmuxChange
      const outcome = yield* tmux.run([["wait-for", input.channel]], { timeoutMs: effectiveTimeout * 1000 }).pipe(
        Effect.as("signalled" as const),
        Effect.catchTag("TmuxTimedOut", () => Effect.succeed("timeout" as const)),
        Effect.ensuring(Fiber.interrupt(progress))
      )
      // tmux also ends a wait when its server exits: make sure the server is still there.
      if (outcome === "signalled") {
        const socket = formatSelector((yield* SocketPin).selector)
        yield* (yield* TmuxObserve).run([["list-sessions", "-F", "#{session_id}"]]).pipe(
          Effect.catchTag("ServerNotRunning", () => Effect.fail(new ServerNotRunning({ socket })))
        )
      }
      return {
        channel: input.channel,
        outcome,
        elapsed_seconds: ((yield* Clock.currentTimeMillis) - started) / 1000,
        effective_timeout: effectiveTimeout
      }
    })
})
