// expect-violation: service-escape
// A program that takes the whole context and picks a service out of it.
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { TmuxDelete } from "../../../src/services/Tmux.ts"

export const program = Effect.context<TmuxDelete>().pipe(Effect.map((context) => Context.get(context, TmuxDelete)))
