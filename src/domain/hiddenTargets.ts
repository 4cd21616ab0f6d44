/**
 * The control connections' hidden sessions are never targets (domain/protocolNames.ts). An instance
 * with a connection knows their IDs from it (platform/ControlLink.ts); one without (the `spawn`
 * transport) does not, and another instance's connection may be on its socket. So its command lists
 * check each ID they name in the same invocation: before the first command, a `set-option -u` per ID
 * whose option name is a format that expands to a user option nothing sets, or, when the object is
 * in a hidden session, to a name that is no option. tmux then refuses that command and drops the
 * rest of the list, and the refusal is told as tmux's own for a target that names nothing.
 */
import { controlSessionPrefix, marks, paneRunOptions } from "./protocolNames.ts"
import { tmuxRefusal } from "./tmuxRefusals.ts"

type Commands = ReadonlyArray<ReadonlyArray<string>>

/** An object's kind by its ID's first character. */
const kinds = { "%": "pane", "@": "window", "$": "session" } as const

/** The scope flag `set-option` takes for an object of that kind. */
const scopes = { "%": "-pu", "@": "-wu", "$": "-u" } as const

type Sigil = keyof typeof kinds

/** The IDs the commands name as a target or source (`-t`/`-s`, alone or before `:` or `.`), with the command. */
export const namedIds = (commands: Commands): ReadonlyArray<{ readonly id: string; readonly command: string }> =>
  commands.flatMap((command) =>
    command.slice(1, -1).flatMap((flag, i) => {
      if (flag !== "-t" && flag !== "-s") return []
      const id = /^[%@$][0-9]+/u.exec(command[i + 2]!)?.[0]
      return id === undefined ? [] : [{ id, command: command[0]! }]
    })
  )

/** tmux's words for a target that names nothing. */
export const notFoundText = (id: string): string => `can't find ${kinds[id[0] as Sigil]}: ${id}`

/** The guard commands for the IDs the commands name, one per ID; none when they name none. */
export const hiddenGuards = (commands: Commands): Commands =>
  [...new Set(namedIds(commands).map(({ id }) => id))].map((id) => [
    "set-option",
    scopes[id[0] as Sigil],
    "-t",
    id,
    `#{?#{m:${controlSessionPrefix}*,#{session_name}},${marks.hiddenTarget}:${id},${paneRunOptions.none}}`
  ])

/** The ID a guard refused, when `stderr` is its refusal. */
export const refusedId = (stderr: string): string | undefined => {
  const refusal = tmuxRefusal(stderr)
  const prefix = `${marks.hiddenTarget}:`
  return refusal._tag === "InvalidOption" && refusal.option.startsWith(prefix)
    ? refusal.option.slice(prefix.length)
    : undefined
}
