// Every kind of format the boundary check accepts, and the service use it expects of a tool.
import * as Effect from "effect/Effect"
import { literalizeFormat } from "../../../src/domain/names.ts"
import { variableFormat } from "../../../src/programs/formats.ts"
import { TmuxChange, TmuxObserve } from "../../../src/services/Tmux.ts"
import { formatOf, FS, sessionFields } from "../../../src/services/TmuxReads.ts"

const fixed = `#{pane_id}${FS}#{pane_pid}`

export const argvs = (input: { readonly name: string; readonly new_name: string }) =>
  [
    ["list-sessions", "-F", formatOf(sessionFields)],
    ["list-panes", "-F", fixed],
    ["display-message", "-p", "-t", "%0", "#{history_size}"],
    ["display-message", "-p", "-t", "%0", variableFormat(input.name)],
    ["rename-window", "-t", "@0", "--", literalizeFormat(input.new_name)],
    ["new-session", "-d", "-s", literalizeFormat(input.name), "-n", literalizeFormat(input.new_name)]
  ] as const

export const program = Effect.gen(function*() {
  yield* (yield* TmuxObserve).run([["list-sessions", "-F", "#{session_id}"]])
  return yield* (yield* TmuxChange).run([["rename-session", "-t", "$0", "--", literalizeFormat("x")]])
})
