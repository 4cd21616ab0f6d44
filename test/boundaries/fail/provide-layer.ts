// expect-violation: service-escape
// A program that provides itself every tmux authority: it compiles, whatever its row allows.
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as TmuxLive from "../../../src/layers/TmuxLive.ts"
import { SocketPin } from "../../../src/services/SocketPin.ts"
import { TmuxDelete } from "../../../src/services/Tmux.ts"

export const program = (pin: SocketPin["Service"]) =>
  TmuxDelete.use((tmux) => tmux.run([["kill-server"] as never])).pipe(
    Effect.provide(TmuxLive.layer("tmux").pipe(Layer.provide(Layer.succeed(SocketPin, pin))))
  )
