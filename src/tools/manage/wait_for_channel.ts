/**
 * wait_for_channel: block (bounded) until a tmux wait-for channel is signalled.
 *
 * tmux 3.2-3.3 cannot withdraw a waiter: a killed `wait-for` client stays a waiter, and the next
 * signal, finding a waiter, wakes it instead of being kept for the next one, so it is lost. So at a
 * timeout or cancellation our own waiting client, still alive (its own deadline is later), is
 * released by signalling the channel once. That wakes every other waiter of the channel at that
 * instant too, and a signal that wakes us in the milliseconds before our release leaves the release
 * kept as a signal: the smaller race, stated in the description.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { Channel } from "../../programs/channel.ts"
import {
  effectiveTimeout,
  effectiveTimeoutField,
  reportedTimeout,
  timeoutField,
  withProgress
} from "../../programs/waiting.ts"
import type { TmuxError } from "../../services/errors.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { reads } from "../../services/TmuxReads.ts"
import { defineTool } from "../define.ts"

/** How much longer than the call our wait-for client may live, so that it is alive to be released. */
const releaseGraceMs = 5_000

/** Wakes our own waiting client (and whoever else waits on the channel now), then lets it end. */
const release = (tmux: TmuxChange["Service"], channel: string, waiting: Fiber.Fiber<string, TmuxError>) =>
  Effect.gen(function*() {
    if (waiting.pollUnsafe() !== undefined) return
    yield* tmux.run([["wait-for", "-S", channel]]).pipe(Effect.ignore)
    yield* Fiber.await(waiting).pipe(Effect.timeoutOption(releaseGraceMs))
    yield* Fiber.interrupt(waiting)
  })

/** @category tools */
export const wait_for_channel = defineTool(manifest.wait_for_channel, {
  description: "Wait for a tmux wait-for channel signal (from a typed `; tmux wait-for -S NAME` or " +
    "signal_channel). tmux keeps a signal sent before the wait; this consumes it. On " +
    "timeout or cancel it signals once to release its waiter, waking other waiters too.",
  input: Schema.Struct({
    channel: Channel,
    timeout: timeoutField
  }),
  output: Schema.Struct({
    channel: Schema.String.annotate({ description: "the channel" }),
    outcome: Schema.Literals(["signalled", "timeout"]).annotate({ description: "what ended the wait" }),
    elapsed_seconds: Schema.Finite.annotate({ description: "seconds waited" }),
    effective_timeout: effectiveTimeoutField
  }),
  run: (input) =>
    Effect.gen(function*() {
      const timeout = yield* effectiveTimeout(input.timeout)
      const started = yield* Clock.currentTimeMillis
      const tmux = yield* TmuxChange
      const waiting = yield* Effect.forkChild(
        tmux.run([["wait-for", input.channel]], { timeoutMs: timeout * 1000 + releaseGraceMs })
      )
      const ended = yield* withProgress(timeout, `waiting for channel ${input.channel}`, Fiber.await(waiting)).pipe(
        Effect.timeoutOption(timeout * 1000),
        Effect.onInterrupt(() => release(tmux, input.channel, waiting))
      )
      // A wait that ended just as the timeout came still counts as signalled.
      const exit = Option.isSome(ended) ? ended.value : waiting.pollUnsafe()
      let outcome: "signalled" | "timeout" = "timeout"
      if (exit === undefined) yield* release(tmux, input.channel, waiting)
      else if (Exit.isSuccess(exit)) outcome = "signalled"
      else if (Option.isSome(ended)) yield* exit
      // tmux also ends a wait when its server exits: make sure the server is still there.
      if (outcome === "signalled") yield* (yield* reads).sessions()
      return {
        channel: input.channel,
        outcome,
        elapsed_seconds: ((yield* Clock.currentTimeMillis) - started) / 1000,
        ...reportedTimeout(input.timeout, timeout)
      }
    })
})
