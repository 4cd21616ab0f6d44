/**
 * Authority services over a scripted runner, built through the contract's one constructor
 * (`makeAuthorities`): a unit test's double refuses exactly the commands production refuses.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { TmuxError } from "../../src/services/errors.ts"
import { makeAuthorities, PaneCommand, TmuxObserve } from "../../src/services/Tmux.ts"

/** Answers one invocation's commands. */
export type Script = (commands: ReadonlyArray<ReadonlyArray<string>>) => Effect.Effect<string, TmuxError>

/** Every authority over `script` (a spawn that may start a server is not scripted). */
export const scriptedAuthorities = (script: Script) =>
  makeAuthorities({
    run: (commands) => script(commands),
    spawn: (commands) => script(commands),
    create: () => Effect.die(new Error("this script starts no tmux server"))
  })

/** The read authority over `script`. */
export const scriptedObserve = (script: Script): TmuxObserve["Service"] =>
  Context.get(scriptedAuthorities(script), TmuxObserve)

/** The run authority over `script`. */
export const scriptedCommand = (script: Script): PaneCommand["Service"] =>
  Context.get(scriptedAuthorities(script), PaneCommand)
