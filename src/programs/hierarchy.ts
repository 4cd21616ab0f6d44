/**
 * The hierarchy as typed values: the output schemas of sessions, windows and panes, built from the
 * field tables of the Tmux contract's typed reads (services/TmuxReads.ts), and those reads with
 * the pane this server runs in marked.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type PaneId, printedIds } from "../domain/ids.ts"
import { type ServerNotRunning, TmuxCommandFailed } from "../services/errors.ts"
import { ServerPane } from "../services/ServerPane.ts"
import {
  decode,
  type Fields,
  paneFields,
  type PaneScope,
  reads,
  type Row,
  sessionFields,
  windowFields
} from "../services/TmuxReads.ts"
import { type Variable, variableDescriptions } from "./variables.ts"

const schemaOf = { string: Schema.String, int: Schema.Int, bool: Schema.Boolean, ...printedIds } as const

// Each field is described by the one dictionary of tmux variables.
const structOf = <F extends Fields>(fields: F & { readonly [K in Exclude<keyof F, Variable>]: never }) =>
  Schema.Struct(
    Object.fromEntries(
      Object.entries(fields as Fields).map(([key, kind]) => [
        key,
        schemaOf[kind].annotate({ description: variableDescriptions[key as Variable] })
      ])
    ) as {
      readonly [K in keyof F]: typeof schemaOf[F[K]]
    }
  )

/** A session as tools return it. @category schemas */
export const SessionInfo = structOf(sessionFields)
/** A window as tools return it. @category schemas */
export const WindowInfo = structOf(windowFields)
/** A pane as tools return it; `is_caller` marks the pane this server runs in. @category schemas */
export const PaneInfo = Schema.Struct({
  ...structOf(paneFields).fields,
  is_caller: Schema.Boolean.annotate({ description: "true only for the pane that contains this MCP server process" })
})

/** @category models */
export type SessionInfo = Row<typeof sessionFields>
/** @category models */
export type WindowInfo = Row<typeof windowFields>
/** @category models */
export type PaneInfo = Row<typeof paneFields> & { readonly is_caller: boolean }

/** Treats a missing server as an empty world, for plural discovery. */
export const emptyWhenNoServer = <A, E extends { readonly _tag: string }, R>(
  effect: Effect.Effect<ReadonlyArray<A>, E | ServerNotRunning, R>
): Effect.Effect<ReadonlyArray<A>, Exclude<E, ServerNotRunning>, R> =>
  Effect.catch(
    effect,
    (error) =>
      error._tag === "ServerNotRunning" ? Effect.succeed([]) : Effect.fail(error as Exclude<E, ServerNotRunning>)
  )

/** Every session on the pinned server, in tmux's order. */
export const listSessionRows = Effect.flatMap(reads, (tmux) => tmux.sessions())

/** Windows of one session (by ID), or of every session. */
export const listWindowRows = (sessionId?: string) => Effect.flatMap(reads, (tmux) => tmux.windows(sessionId))

/** Panes of one window or session (by ID), or of the whole server; each marked with `is_caller`. */
export const listPaneRows = Effect.fn("hierarchy.listPaneRows")(function*(scope: PaneScope) {
  const rows = yield* (yield* reads).panes(scope)
  return yield* markCaller(rows)
})

/** Marks the pane this server runs in. */
const markCaller = (rows: ReadonlyArray<Row<typeof paneFields>>) =>
  Effect.map(
    ServerPane.use((caller) => caller.panes),
    (own) => rows.map((row): PaneInfo => ({ ...row, is_caller: own.includes(row.pane_id) }))
  )

/** Decodes what `readBack.panes` printed, marking the pane this server runs in. */
export const parsePaneRows = (stdout: string) => Effect.flatMap(decode.panes(stdout), markCaller)

/** The pane `paneId` among the rows an acting invocation read back. */
export const paneOf = (paneId: PaneId, stdout: string) =>
  Effect.flatMap(parsePaneRows(stdout), (rows) => {
    const row = rows.find((candidate) => candidate.pane_id === paneId)
    return row === undefined
      ? Effect.fail(
        new TmuxCommandFailed({
          command: "list-panes",
          exitCode: 0,
          stderr: `pane ${paneId} was not among its window's panes`
        })
      )
      : Effect.succeed(row)
  })
