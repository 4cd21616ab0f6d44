/**
 * The hierarchy as typed values: the output schemas of sessions, windows and panes, and the
 * read queries that produce them. Every read uses our own fixed `-F` format (no caller text ever
 * reaches a format), with fields split on the unit separator and records ended by the record
 * separator, so values that contain spaces or tabs are never confused with delimiters.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type ServerNotRunning, TmuxCommandFailed } from "../services/errors.ts"
import { ServerPane } from "../services/ServerPane.ts"
import { TmuxObserve } from "../services/Tmux.ts"
import { type Variable, variableDescriptions } from "./variables.ts"

/** Field and record separators of the formats we read. */
export const FS = "\u001f"
export const RS = "\u001e"

/** How a format field decodes. */
export type Kind = "string" | "int" | "bool"
/** A set of tmux format fields and their kinds. */
export type Fields = Readonly<Record<string, Kind>>

const schemaOf = { string: Schema.String, int: Schema.Int, bool: Schema.Boolean } as const

export const sessionFields = {
  session_id: "string",
  session_name: "string",
  session_windows: "int",
  session_attached: "int",
  session_created: "int",
  session_path: "string"
} as const satisfies Fields

const windowFields = {
  window_id: "string",
  window_index: "int",
  window_name: "string",
  window_active: "bool",
  window_panes: "int",
  window_width: "int",
  window_height: "int",
  window_layout: "string",
  session_id: "string",
  session_name: "string"
} as const satisfies Fields

/** The fields of a pane as tools return it. */
export const paneFields = {
  pane_id: "string",
  pane_index: "int",
  pane_active: "bool",
  pane_width: "int",
  pane_height: "int",
  pane_left: "int",
  pane_top: "int",
  pane_title: "string",
  pane_current_command: "string",
  pane_current_path: "string",
  pane_pid: "int",
  pane_tty: "string",
  pane_dead: "bool",
  pane_in_mode: "bool",
  window_id: "string",
  window_index: "int",
  session_id: "string",
  session_name: "string"
} as const satisfies Fields

/** The decoded values of a set of fields. */
export type Row<F extends Fields> = { readonly [K in keyof F]: F[K] extends "int" ? number : F[K] extends "bool" ? boolean : string }

// Each field is described by the one dictionary of tmux variables.
const structOf = <F extends Fields>(fields: F & { readonly [K in Exclude<keyof F, Variable>]: never }) =>
  Schema.Struct(Object.fromEntries(Object.entries(fields as Fields).map(([key, kind]) => [
    key,
    schemaOf[kind].annotate({ description: variableDescriptions[key as Variable] })
  ])) as {
    readonly [K in keyof F]: typeof schemaOf[F[K]]
  })

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

/** Our fixed `-F` format for a set of fields. */
export const formatOf = (fields: Fields): string => Object.keys(fields).map((key) => `#{${key}}`).join(FS) + RS

/** Decodes the records a `-F` format produced. */
export const parseRows = <F extends Fields>(fields: F, command: string, stdout: string): Effect.Effect<ReadonlyArray<Row<F>>, TmuxCommandFailed> =>
  Effect.suspend(() => {
    const keys = Object.keys(fields)
    const records = stdout.split(`${RS}\n`).filter((record) => record !== "")
    const rows: Array<Row<F>> = []
    for (const record of records) {
      const values = record.split(FS)
      if (values.length !== keys.length) {
        return Effect.fail(new TmuxCommandFailed({ command, exitCode: 0, stderr: "unexpected output shape; a value held a separator" }))
      }
      rows.push(Object.fromEntries(keys.map((key, i) => {
        const value = values[i]!
        const kind = fields[key]
        return [key, kind === "int" ? Number.parseInt(value, 10) : kind === "bool" ? value === "1" : value]
      })) as Row<F>)
    }
    return Effect.succeed(rows)
  })

/** Treats a missing server as an empty world, for plural discovery. */
export const emptyWhenNoServer = <A, E extends { readonly _tag: string }, R>(
  effect: Effect.Effect<ReadonlyArray<A>, E | ServerNotRunning, R>
): Effect.Effect<ReadonlyArray<A>, Exclude<E, ServerNotRunning>, R> =>
  Effect.catch(effect, (error) =>
    error._tag === "ServerNotRunning" ? Effect.succeed([]) : Effect.fail(error as Exclude<E, ServerNotRunning>))

/** Every session on the pinned server, in tmux's order. */
export const listSessionRows = Effect.gen(function*() {
  const tmux = yield* TmuxObserve
  const stdout = yield* tmux.run([["list-sessions", "-F", formatOf(sessionFields)]])
  return yield* parseRows(sessionFields, "list-sessions", stdout)
})

/** Windows of one session (by ID), or of every session. */
export const listWindowRows = (sessionId?: string) =>
  Effect.gen(function*() {
    const tmux = yield* TmuxObserve
    const scope = sessionId === undefined ? ["-a"] : ["-t", sessionId]
    const stdout = yield* tmux.run([["list-windows", ...scope, "-F", formatOf(windowFields)]])
    return yield* parseRows(windowFields, "list-windows", stdout)
  })

/** Panes of one window or session (by ID), or of the whole server; each marked with `is_caller`. */
export const listPaneRows = (scope: { readonly windowId: string } | { readonly sessionId: string } | "all") =>
  Effect.gen(function*() {
    const tmux = yield* TmuxObserve
    const args = scope === "all" ? ["-a"] : "windowId" in scope ? ["-t", scope.windowId] : ["-s", "-t", scope.sessionId]
    return yield* parsePaneRows(yield* tmux.run([["list-panes", ...args, "-F", formatOf(paneFields)]]))
  })

/** `list-panes` of the window `target` is in, for an invocation that acts on it and reads back in one go. */
export const readBackPanes = (target: string) => ["list-panes", "-t", target, "-F", formatOf(paneFields)] as const

/** Decodes `list-panes` rows of `paneFields`, marking the pane this server runs in. */
export const parsePaneRows = (stdout: string) =>
  Effect.gen(function*() {
    const caller = yield* ServerPane
    const rows = yield* parseRows(paneFields, "list-panes", stdout)
    return rows.map((row): PaneInfo => ({ ...row, is_caller: caller.onPinnedSocket && caller.paneId === row.pane_id }))
  })

/** The pane `paneId` among the rows an acting invocation read back. */
export const paneOf = (paneId: string, stdout: string) =>
  Effect.flatMap(parsePaneRows(stdout), (rows) => {
    const row = rows.find((candidate) => candidate.pane_id === paneId)
    return row === undefined
      ? Effect.fail(new TmuxCommandFailed({ command: "list-panes", exitCode: 0, stderr: `pane ${paneId} was not among its window's panes` }))
      : Effect.succeed(row)
  })

