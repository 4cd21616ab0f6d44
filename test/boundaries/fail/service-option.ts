// expect-violation: service-escape
// A program that looks for TmuxDelete without requiring it: its type stays within any row.
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { TmuxDelete } from "../../../src/services/Tmux.ts"

export const program = Effect.serviceOption(TmuxDelete).pipe(
  Effect.flatMap((found) => Option.isSome(found) ? found.value.run([["kill-session", "-t", "$0"]]) : Effect.succeed(""))
)
