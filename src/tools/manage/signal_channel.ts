/** signal_channel: signal a tmux wait-for channel. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { Channel } from "../channel.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const signal_channel = defineTool(manifest.signal_channel, {
  description: "Signal a tmux wait-for channel, waking everyone waiting on it (wait_for_channel, or `tmux wait-for " +
    "NAME` in a pane). Not idempotent: when nobody waits, tmux keeps the signal for the next waiter, and a second " +
    "unwaited signal clears it again.",
  input: Schema.Struct({ channel: Channel }),
  output: Schema.Struct({ channel: Schema.String.annotate({ description: "the channel signalled" }) }),
  run: (input) =>
    Effect.gen(function*() {
      const tmux = yield* TmuxChange
      yield* tmux.run([["wait-for", "-S", input.channel]])
      return { channel: input.channel }
    })
})
