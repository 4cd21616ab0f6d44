/**
 * The typed reads of the Tmux contract: sessions, windows and panes as decoded rows, made over the
 * read authority (`TmuxObserve`). Every read uses a fixed `-F` format built here from a field
 * table written in code (no caller text ever reaches a format), with fields split on the unit
 * separator and records ended by the record separator, so values that contain spaces or tabs are
 * never confused with delimiters. An acting invocation that reads back in the same go takes its
 * read command and decoder from here too.
 */
import * as Effect from "effect/Effect"
import { type IdKind, idPatterns, type PaneId, type SessionId, type WindowId } from "../domain/ids.ts"
import { isControlSession, paneRunOptions, protocolNames, runIdPattern } from "../domain/protocolNames.ts"
import { parseEndRecord } from "../domain/runPositions.ts"
import { decodeMark, decodeRecord, type RunEnding } from "../domain/runRecord.ts"
import { formatSelector } from "../domain/socket.ts"
import { PaneNotFound, TmuxCommandFailed, type TmuxError } from "./errors.ts"
import { SocketPin } from "./SocketPin.ts"
import { type Authority, type TmuxCommand, TmuxObserve } from "./Tmux.ts"

/** Field and record separators of the formats we read. */
export const FS = "\u001f"
export const RS = "\u001e"

/** How a format field decodes: an ID kind is checked against its form and comes back branded. */
export type Kind = "string" | "int" | "bool" | IdKind
/** A set of tmux format fields and their kinds. */
export type Fields = Readonly<Record<string, Kind>>

/** The decoded values of a set of fields. */
export type Row<F extends Fields> = {
  readonly [K in keyof F]: F[K] extends "int" ? number : F[K] extends "bool" ? boolean
  : F[K] extends "session-id" ? SessionId
  : F[K] extends "window-id" ? WindowId
  : F[K] extends "pane-id" ? PaneId
  : string
}

/** The fields of a session as tools return it. */
export const sessionFields = {
  session_id: "session-id",
  session_name: "string",
  session_windows: "int",
  session_attached: "int",
  session_created: "int",
  session_path: "string"
} as const satisfies Fields

/** The fields of a window as tools return it. */
export const windowFields = {
  window_id: "window-id",
  window_index: "int",
  window_name: "string",
  window_active: "bool",
  window_panes: "int",
  window_width: "int",
  window_height: "int",
  window_layout: "string",
  session_id: "session-id",
  session_name: "string"
} as const satisfies Fields

/** The fields of a pane as tools return it. */
export const paneFields = {
  pane_id: "pane-id",
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
  window_id: "window-id",
  window_index: "int",
  session_id: "session-id",
  session_name: "string"
} as const satisfies Fields

/** Server fields, read through `list-sessions` (one row per session, none when there is none). */
export const serverFields = {
  pid: "int",
  version: "string",
  start_time: "int",
  socket_path: "string"
} as const satisfies Fields

/** What the panes' options say of their runs. */
const heldRunFields = {
  pane_id: "pane-id",
  [paneRunOptions.claim]: "string",
  [paneRunOptions.last]: "string"
} as const satisfies Fields

const collectedRunFields = { pane_id: "pane-id", [paneRunOptions.collected]: "string" } as const satisfies Fields

/** A pane's last collected run, as its mark says (domain/runRecord.ts `CollectedMark`). @category models */
export interface CollectedRun {
  readonly pane_id: string
  readonly run_id: string
  readonly exit_status: number | null
  readonly ended: RunEnding
  /** The process ID of the server instance that collected it. */
  readonly collected_by: number
  /** When, as an ISO 8601 time. */
  readonly collected_at: string
}

/** A run that is not collected, as its pane records it. @category models */
export interface HeldRun {
  readonly pane_id: string
  readonly run_id: string
  readonly command_prefix: string
  readonly command_digest: string
  /** Whether it still holds its pane (its trailer has not run). */
  readonly holds_pane: boolean
  /** Its exit status once its trailer ran. */
  readonly exit_status: number | null
}

/** Pane state the control-loop tools check before acting. */
export const paneStateFields = {
  pane_pid: "int",
  pane_dead: "bool",
  pane_in_mode: "bool",
  alternate_on: "bool",
  cursor_x: "int",
  cursor_y: "int",
  history_size: "int",
  history_limit: "int",
  pane_height: "int",
  pane_width: "int",
  pane_current_command: "string"
} as const satisfies Fields

/** Our fixed `-F` format for a set of fields. */
export const formatOf = (fields: Fields): string => Object.keys(fields).map((key) => `#{${key}}`).join(FS) + RS

/** Decodes the records a `-F` format of `fields` produced. */
export const parseRows = <F extends Fields>(
  fields: F,
  command: string,
  stdout: string
): Effect.Effect<ReadonlyArray<Row<F>>, TmuxCommandFailed> =>
  Effect.suspend(() => {
    const keys = Object.keys(fields)
    // Only the end is dropped: a one-field record whose value is empty is still a record.
    const records = stdout.split(`${RS}\n`)
    if (records.at(-1) === "") records.pop()
    const rows: Array<Row<F>> = []
    for (const record of records) {
      const values = record.split(FS)
      if (values.length !== keys.length) {
        return Effect.fail(
          new TmuxCommandFailed({ command, exitCode: 0, stderr: "unexpected output shape; a value held a separator" })
        )
      }
      const badId = keys.find((key, i) => {
        const kind = fields[key]!
        return kind in idPatterns && !idPatterns[kind as IdKind].test(values[i]!)
      })
      if (badId !== undefined) {
        return Effect.fail(
          new TmuxCommandFailed({ command, exitCode: 0, stderr: `unexpected output: ${badId} is no ID` })
        )
      }
      rows.push(Object.fromEntries(keys.map((key, i) => {
        const value = values[i]!
        const kind = fields[key]
        return [key, kind === "int" ? Number.parseInt(value, 10) : kind === "bool" ? value === "1" : value]
      })) as Row<F>)
    }
    return Effect.succeed(rows)
  })

/** Where a pane listing looks: one window or session (by ID), or the whole server. */
export type PaneScope = { readonly windowId: WindowId } | { readonly sessionId: SessionId } | "all"

/** Read commands an acting invocation appends, so that it reads back the state it left in one go. */
export const readBack = {
  /** Every session, as `sessionFields` rows. */
  sessions: (): TmuxCommand<"list-sessions"> => ["list-sessions", "-F", formatOf(sessionFields)],
  /** The panes of the window `target` is in, as `paneFields` rows. */
  panes: (target: string): TmuxCommand<"list-panes"> => ["list-panes", "-t", target, "-F", formatOf(paneFields)]
} as const

/** Decoders of what the `readBack` commands printed. */
export const decode = {
  sessions: (stdout: string) => parseRows(sessionFields, "list-sessions", stdout),
  panes: (stdout: string) => parseRows(paneFields, "list-panes", stdout)
} as const

/**
 * tmux 3.3a's `display-message -p -t %99` prints empty fields and exits 0: a read whose leading
 * `#{pane_id}` is not the target found no pane. Said as tmux says it of other commands, so the
 * callers' not-found mapping treats both alike.
 */
const noSuchPane = (paneId: PaneId) =>
  new TmuxCommandFailed({
    command: "display-message",
    exitCode: 0,
    stderr: `no such pane: ${paneId} (its fields came back empty)`
  })

/** Rows without the control connections' hidden sessions (and their windows and panes): no tool shows them. */
const visible = <R extends { readonly session_name: string }>(rows: ReadonlyArray<R>): ReadonlyArray<R> =>
  rows.some((row) => isControlSession(row.session_name))
    ? rows.filter((row) => !isControlSession(row.session_name))
    : rows

/** The server fields with the session each row is of, to leave out the hidden ones. */
const serverRowFields = { ...serverFields, session_name: "string" } as const satisfies Fields

/** `make`'s heldRuns: the panes' run options, then each wanted run's record, end and the pane's claim. */
const heldRuns = (observe: Authority<"TmuxObserve">) =>
  Effect.fn("TmuxReads.heldRuns")(function*() {
    const listed = yield* observe.run([["list-panes", "-a", "-F", formatOf(heldRunFields)]]).pipe(
      Effect.flatMap((stdout) => parseRows(heldRunFields, "list-panes", stdout))
    )
    const wanted = listed.flatMap((pane) =>
      [...new Set([pane[paneRunOptions.claim], pane[paneRunOptions.last]])].filter((id) => runIdPattern.test(id)).map(
        (runId) => ({
          paneId: pane.pane_id,
          runId
        })
      )
    )
    if (wanted.length === 0) return []
    // IDs are checked against the run ID pattern above: nothing else reaches these formats.
    const stdout = yield* observe.run(wanted.map(({ paneId, runId }) =>
      [
        "display-message",
        "-p",
        "-t",
        paneId,
        `#{${paneRunOptions.record(runId)}}${FS}#{${protocolNames(runId).end}}${FS}#{${paneRunOptions.claim}}`
      ] as const
    ))
    return stdout.split("\n").slice(0, wanted.length).flatMap((line, i) => {
      const [record = "", end = "", claim = ""] = line.split(FS)
      const decoded = decodeRecord(record)
      if (decoded === undefined) return []
      return [{
        pane_id: wanted[i]!.paneId,
        run_id: wanted[i]!.runId,
        command_prefix: decoded.command.prefix,
        command_digest: decoded.command.digest,
        holds_pane: claim === wanted[i]!.runId,
        exit_status: parseEndRecord(end)?.status ?? null
      }] satisfies ReadonlyArray<HeldRun>
    })
  })

/** `make`'s paneAndCapture: a pane's fields and one capture, split at the end of the fields' record. */
const paneAndCapture = <F extends Fields>(
  observe: Authority<"TmuxObserve">,
  paneId: PaneId,
  fields: F,
  captureArgs: ReadonlyArray<string>
): Effect.Effect<{ readonly state: Row<F>; readonly captured: string }, TmuxError> =>
  Effect.gen(function*() {
    const stdout = yield* observe.run([
      ["display-message", "-p", "-t", paneId, `#{pane_id}${FS}${formatOf(fields)}`],
      ["capture-pane", "-p", "-t", paneId, ...captureArgs]
    ])
    if (!stdout.startsWith(paneId + FS)) return yield* noSuchPane(paneId)
    const split = stdout.indexOf(`${RS}\n`) + 2
    const [state] = yield* parseRows(fields, "display-message", stdout.slice(paneId.length + 1, split))
    return { state: state as Row<F>, captured: stdout.slice(split) }
  })

/**
 * `make`'s paneAndCaptures. The line between captures holds control characters, which a pane's
 * rows never do (the terminal acts on them and stores none).
 */
const paneAndCaptures = <F extends Fields>(
  observe: Authority<"TmuxObserve">,
  paneId: PaneId,
  fields: F,
  captures: ReadonlyArray<ReadonlyArray<string>>
): Effect.Effect<{ readonly state: Row<F>; readonly captured: ReadonlyArray<string> }, TmuxError> =>
  Effect.gen(function*() {
    const stdout = yield* observe.run([
      ["display-message", "-p", "-t", paneId, `#{pane_id}${FS}${formatOf(fields)}`],
      ...captures.flatMap((args, i) => [
        ...(i === 0 ? [] : [["display-message", "-p", "-t", paneId, `${FS}${RS}${FS}`] as const]),
        ["capture-pane", "-p", "-t", paneId, ...args] as const
      ])
    ])
    if (!stdout.startsWith(paneId + FS)) return yield* noSuchPane(paneId)
    const split = stdout.indexOf(`${RS}\n`) + 2
    const [state] = yield* parseRows(fields, "display-message", stdout.slice(paneId.length + 1, split))
    return { state: state as Row<F>, captured: stdout.slice(split).split(`${FS}${RS}${FS}\n`) }
  })

/** The typed reads over a read authority. @category constructors */
export const make = (observe: Authority<"TmuxObserve">) => ({
  /** Every session on the pinned server, in tmux's order. */
  sessions: Effect.fn("TmuxReads.sessions")(function*() {
    return visible(yield* Effect.flatMap(observe.run([readBack.sessions()]), decode.sessions))
  }),
  /** The server's own fields, once per session (an empty list when it has no session). */
  server: Effect.fn("TmuxReads.server")(function*() {
    const stdout = yield* observe.run([["list-sessions", "-F", formatOf(serverRowFields)]])
    return visible(yield* parseRows(serverRowFields, "list-sessions", stdout))
  }),
  /**
   * The runs run_shell_command typed that are not collected, by pane, as their panes' options
   * record them (domain/runRecord.ts): whichever server instance typed them. Two invocations.
   */
  heldRuns: heldRuns(observe),
  /** Each pane's last collected run, from its mark: one invocation. */
  collectedRuns: Effect.fn("TmuxReads.collectedRuns")(function*() {
    const stdout = yield* observe.run([["list-panes", "-a", "-F", formatOf(collectedRunFields)]])
    const panes = yield* parseRows(collectedRunFields, "list-panes", stdout)
    return panes.flatMap((pane): ReadonlyArray<CollectedRun> => {
      const mark = decodeMark(pane[paneRunOptions.collected])
      return mark === undefined ? [] : [{
        pane_id: pane.pane_id,
        run_id: mark.runId,
        exit_status: mark.status,
        ended: mark.ended,
        collected_by: Number(mark.collector.split(".")[0]),
        collected_at: new Date(mark.at).toISOString()
      }]
    })
  }),
  /** Windows of one session (by ID), or of every session. */
  windows: Effect.fn("TmuxReads.windows")(function*(sessionId?: string) {
    const stdout = yield* observe.run([[
      "list-windows",
      ...(sessionId === undefined ? ["-a"] : ["-t", sessionId]),
      "-F",
      formatOf(windowFields)
    ]])
    return visible(yield* parseRows(windowFields, "list-windows", stdout))
  }),
  /** Panes of one window or session, or of the whole server. */
  panes: Effect.fn("TmuxReads.panes")(function*(scope: PaneScope) {
    const args = scope === "all" ? ["-a"] : "windowId" in scope ? ["-t", scope.windowId] : ["-s", "-t", scope.sessionId]
    return visible(
      yield* Effect.flatMap(observe.run([["list-panes", ...args, "-F", formatOf(paneFields)]]), decode.panes)
    )
  }),
  /** Format fields of one pane by ID, in one invocation. */
  pane: <F extends Fields>(paneId: PaneId, fields: F): Effect.Effect<Row<F>, TmuxError> =>
    Effect.gen(function*() {
      const stdout = yield* observe.run([["display-message", "-p", "-t", paneId, `#{pane_id}${FS}${formatOf(fields)}`]])
      if (!stdout.startsWith(paneId + FS)) return yield* noSuchPane(paneId)
      const [row] = yield* parseRows(fields, "display-message", stdout.slice(paneId.length + 1))
      return row as Row<F>
    }),
  /** Format fields of one pane and its captured rows (`capture-pane -p` with `captureArgs`), in one invocation. */
  paneAndCapture: <F extends Fields>(paneId: PaneId, fields: F, captureArgs: ReadonlyArray<string>) =>
    paneAndCapture(observe, paneId, fields, captureArgs),
  /**
   * Format fields of one pane and several captures of the same moment (`capture-pane -p` with each
   * of `captures`), in one invocation.
   */
  paneAndCaptures: <F extends Fields>(paneId: PaneId, fields: F, captures: ReadonlyArray<ReadonlyArray<string>>) =>
    paneAndCaptures(observe, paneId, fields, captures)
})

/** The typed reads of the Tmux contract. @category models */
export type TmuxReads = ReturnType<typeof make>

/** The typed reads over the `TmuxObserve` in context. */
export const reads: Effect.Effect<TmuxReads, never, TmuxObserve> = TmuxObserve.useSync(make)

/**
 * Turns a failure caused by a missing pane (or server) into a `PaneNotFound` that lists the panes
 * that exist; a pane that does exist keeps the original failure.
 */
export const orPaneNotFound = (paneId: PaneId) => <A, E extends TmuxError, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catch(
    effect,
    (error) =>
      error._tag === "ServerNotRunning" ||
        (error._tag === "TmuxCommandFailed" && error.refusal._tag === "TargetMissing")
        ? Effect.flatMap(paneMissing(paneId), () => Effect.fail(error))
        : Effect.fail(error)
  )

/** Fails with `PaneNotFound` unless the pane exists (then succeeds). */
const paneMissing = (paneId: PaneId) =>
  Effect.gen(function*() {
    const socket = formatSelector((yield* SocketPin).selector)
    const panes = yield* Effect.flatMap(reads, (tmux) => tmux.panes("all")).pipe(
      Effect.catchTag("ServerNotRunning", () =>
        Effect.fail(new PaneNotFound({ target: paneId, existing: [], socket, serverRunning: false })))
    )
    if (
      panes.some((pane) =>
        pane.pane_id === paneId
      )
    ) return
    return yield* new PaneNotFound({
      target: paneId,
      existing: panes.map((pane) => pane.pane_id),
      socket,
      serverRunning: true
    })
  })
