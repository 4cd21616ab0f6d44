/**
 * What the input tools share: the keys of one send, and the set of panes an input really reaches
 * (every pane of the window while synchronize-panes is on).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { PaneInput } from "../services/Tmux.ts"
import { orPaneNotFound } from "./pane.ts"

/** The longest keys string of one send. */
export const maxKeysLength = 10_000

/** One send's fields. @category schemas */
export const keysFields = {
  keys: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(maxKeysLength)).annotate({
    description: "text to type, or with literal false one tmux key name such as C-c, Enter, Escape, Up or F5"
  }),
  literal: Schema.optionalKey(Schema.Boolean.annotate({
    description: "send keys as literal text, never as key names (default false: a string that names a key sends that key)"
  })),
  enter: Schema.optionalKey(Schema.Boolean.annotate({ description: "press Enter afterwards (default true; use false for C-c and the like)" }))
}

/** The tmux commands of one send. */
export const sendCommands = (paneId: string, send: { readonly keys: string; readonly literal?: boolean; readonly enter?: boolean }) => [
  ["send-keys", "-t", paneId, ...(send.literal === true ? ["-l"] : []), "--", send.keys] as const,
  ...(send.enter === false ? [] : [["send-keys", "-t", paneId, "Enter"] as const])
]

/** The panes input to `paneId` reaches: its whole window while synchronize-panes is on. */
export const inputTargets = (paneId: string) =>
  Effect.gen(function*() {
    const tmux = yield* PaneInput
    const stdout = yield* tmux.run([
      ["display-message", "-p", "-t", paneId, "#{synchronize-panes}"],
      ["list-panes", "-t", paneId, "-F", "#{pane_id}"]
    ]).pipe(orPaneNotFound(paneId))
    const [sync = "0", ...panes] = stdout.trim().split("\n")
    return sync === "1" ? { targets: panes, synchronized: true } : { targets: [paneId], synchronized: false }
  })

/** What an input tool reports about where its input went. @category schemas */
export const targetFields = {
  targets: Schema.Array(Schema.String).annotate({ description: "every pane the input reached (more than one while synchronize-panes is on)" }),
  synchronized: Schema.Boolean
}
