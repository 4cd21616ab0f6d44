/** signal_channel: signal a tmux wait-for channel. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { manifest } from "../../manifest/index.ts"
import { Channel } from "../../programs/channel.ts"
import { TmuxChange } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const signal_channel = defineTool(manifest.signal_channel, {
  description: "Signal a wait-for channel, waking its waiters; with none, tmux " +
    "keeps it for the next (a second unwaited signal clears it).",
  input: Schema.Struct({ channel: Channel }),
  output: Schema.Struct({ channel: Schema.String.annotate({ description: "the channel signalled" }) }),
  run: (input) =>
    Effect.gen(function*() {
      const tmux = yield* TmuxChange
      yield* tmux.run([["wait-for", "-S", input.channel]])
      return { channel: input.channel }
    })
})
