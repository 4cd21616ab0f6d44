/**
 * What the input tools share: the keys of one send, and the set of panes an input really reaches
 * (every pane of the window while synchronize-panes is on).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { PaneId } from "../domain/ids.ts"
import { PaneInput } from "../services/Tmux.ts"
import { orPaneNotFound } from "./pane.ts"
import { usually } from "./usual.ts"

/** The longest keys string of one send. */
export const maxKeysLength = 10_000

/** A NUL cannot reach tmux (process arguments end at one): refused, never half-sent. */
export const noNul = Schema.makeFilter((text: string) =>
  text.includes("\u0000") ? "must not contain NUL characters, which tmux cannot carry" : true
)

/** One send's fields. @category schemas */
export const keysFields = {
  keys: Schema.String.annotate({
    description: "text, or one key name"
  }).check(Schema.isMinLength(1), Schema.isMaxLength(maxKeysLength), noNul),
  literal: Schema.optionalKey(Schema.Boolean.annotate({
    description: "never read keys as a key name (default false)"
  })),
  enter: Schema.optionalKey(Schema.Boolean.annotate({ description: "press Enter after (default true)" }))
}

/**
 * The bytes of text one invocation carries at most: tmux refuses a client message over 16 KiB.
 * Counted in UTF-8 bytes, not characters (a CJK character is three).
 */
export const invocationBytes = 12_000

type SendCommand = readonly ["send-keys", "-t", string, ...Array<string>]

/**
 * The tmux commands of one send. Text longer than one invocation carries is split into several
 * sends of the same text, each long enough that no piece can be read as a key name.
 */
export const sendCommands = (
  paneId: PaneId,
  send: { readonly keys: string; readonly literal?: boolean; readonly enter?: boolean }
): Array<SendCommand> => {
  const pieces = Math.ceil(Buffer.byteLength(send.keys) / invocationBytes)
  const chars = [...send.keys]
  const size = Math.ceil(chars.length / pieces)
  const texts = Array.from({ length: pieces }, (_, i) => chars.slice(i * size, (i + 1) * size).join(""))
  return [
    ...texts.map((
      text
    ): SendCommand => ["send-keys", "-t", paneId, ...(send.literal === true ? ["-l"] : []), "--", text]),
    ...(send.enter === false ? [] : [["send-keys", "-t", paneId, "Enter"] as const])
  ]
}

/**
 * Groups commands, in order, into invocations of at most `invocationBytes` each
 * (sizes checked before anything is sent).
 */
export const invocations = <C extends readonly [string, ...Array<string>]>(
  commands: ReadonlyArray<C>
): Array<Array<C>> => {
  const groups: Array<Array<C>> = []
  let size = Number.POSITIVE_INFINITY
  for (const command of commands) {
    const bytes = command.reduce((total, arg) => total + Buffer.byteLength(arg) + 3, 0)
    if (size + bytes > invocationBytes) {
      groups.push([])
      size = 0
    }
    groups.at(-1)!.push(command)
    size += bytes
  }
  return groups
}

/** The reads that say where input to `paneId` goes; they fail on a missing pane, before anything after them runs. */
export const targetReads = (paneId: PaneId) =>
  [
    ["display-message", "-p", "-t", paneId, "#{synchronize-panes}"],
    ["list-panes", "-t", paneId, "-F", "#{pane_id}"]
  ] as const

/** Where the reads of `targetReads` say input to `paneId` goes. */
export const parseTargets = (paneId: PaneId, stdout: string) => {
  const [sync = "0", ...panes] = stdout.trim().split("\n")
  return sync === "1" ? { targets: panes, synchronized: true } : { targets: [paneId], synchronized: false }
}

/** The panes input to `paneId` reaches: its whole window while synchronize-panes is on. */
export const inputTargets = Effect.fn("keys.inputTargets")(function*(paneId: PaneId) {
  const stdout = yield* (yield* PaneInput).run(targetReads(paneId)).pipe(orPaneNotFound(paneId))
  return parseTargets(paneId, stdout)
})

/**
 * Sends to one pane and says where the input went, in one tmux invocation when the text fits one
 * message: the reads go first, so a missing pane fails the invocation before anything is sent.
 */
export const sendTo = (
  paneId: PaneId,
  send: { readonly keys: string; readonly literal?: boolean; readonly enter?: boolean }
) =>
  Effect.gen(function*() {
    const tmux = yield* PaneInput
    const [first = [], ...rest] = invocations([...targetReads(paneId), ...sendCommands(paneId, send)])
    const stdout = yield* tmux.run(first).pipe(orPaneNotFound(paneId))
    for (const group of rest) yield* tmux.run(group).pipe(orPaneNotFound(paneId))
    return parseTargets(paneId, stdout)
  })

/** What an input tool reports about where its input went. @category schemas */
export const targetFields = {
  targets: Schema.Array(Schema.String).annotate({
    description: "every pane the input reached (more than one while synchronize-panes is on)"
  }),
  synchronized: usually(
    Schema.Boolean.annotate({
      description: "true: synchronize-panes was on, so the input reached every pane of the window"
    }),
    false,
    "the input reached the targets only"
  )
}
