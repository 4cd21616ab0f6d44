/**
 * Target parameters and their resolution. IDs and names are separate parameters, names match
 * exactly (resolved here, in code, to the object's ID; tmux's own `-t foo` would also match
 * `foobar` by prefix), and nothing silently falls back to "the first" anything: a missing or
 * ambiguous target is an error that names what exists.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type PaneId, SessionId, WindowId } from "../domain/ids.ts"
import { maxNameLength, nameProblem } from "../domain/names.ts"
import { formatSelector } from "../domain/socket.ts"
import { ArgumentProblem, PaneNotFound, SessionNotFound, WindowNotFound } from "../services/errors.ts"
import { SocketPin } from "../services/SocketPin.ts"
import { listPaneRows, listSessionRows, listWindowRows } from "./hierarchy.ts"

/**
 * A session or window name in this server's grammar. The description goes on before the check:
 * an annotation after a filter is dropped from the JSON Schema.
 * @category schemas
 */
export const Name = (description: string) =>
  Schema.String.annotate({ description }).check(Schema.makeFilter((name: string) => nameProblem(name) ?? true, {
    // Property tests draw names from the schema: without a length hint they start from the empty name.
    arbitraryConstraint: { minLength: 1, maxLength: maxNameLength }
  }))

/** The two ways to name a session, as optional input fields. @category schemas */
export const sessionTargetFields = {
  session_id: Schema.optionalKey(SessionId),
  session_name: Schema.optionalKey(Name("exact name"))
}

/** The ways to name a window: its ID, or a session with an index. @category schemas */
export const windowTargetFields = {
  window_id: Schema.optionalKey(WindowId),
  ...sessionTargetFields,
  window_index: Schema.optionalKey(
    Schema.Int.annotate({ description: "index in the session" }).check(
      Schema.isBetween({ minimum: 0, maximum: 100_000 })
    )
  )
}

interface SessionTarget {
  readonly session_id?: string
  readonly session_name?: string
}

const socketOf = SocketPin.useSync((pin) => formatSelector(pin.selector))

/** The session one of `session_id` / `session_name` names; exactly one must be given. */
export const resolveSession = (target: SessionTarget) => Effect.map(findSession(target), ({ session }) => session)

/** The session a target names, with every session listed in the same read. */
export const findSession = Effect.fn("targets.findSession")(function*(target: SessionTarget) {
  const { session_id: id, session_name: name } = target
  if (id !== undefined && name !== undefined) {
    return yield* new ArgumentProblem({ detail: "give session_id or session_name, not both" })
  }
  if (id === undefined && name === undefined) {
    return yield* new ArgumentProblem({ detail: "give session_id or session_name (call list_sessions to see them)" })
  }
  const socket = yield* socketOf
  const sessions = yield* listSessionRows.pipe(
    Effect.catchTag(
      "ServerNotRunning",
      () => Effect.fail(new SessionNotFound({ target: (id ?? name)!, existing: [], socket, serverRunning: false }))
    )
  )
  const found = sessions.find((session) => id !== undefined ? session.session_id === id : session.session_name === name)
  if (found !== undefined) return { session: found, sessions }
  return yield* new SessionNotFound({
    target: id ?? JSON.stringify(name),
    existing: sessions.map((session) => `${session.session_id} ${JSON.stringify(session.session_name)}`),
    socket,
    serverRunning: true
  })
})

/** A session when one of its target fields is given, else `undefined` (meaning: all sessions). */
export const optionalSession = (target: SessionTarget) =>
  target.session_id === undefined && target.session_name === undefined
    ? Effect.succeed(undefined)
    : resolveSession(target)

/** The window `window_id` names, or the window at `window_index` of a session. */
export const resolveWindow = (
  target: SessionTarget & { readonly window_id?: string; readonly window_index?: number }
) =>
  Effect.gen(function*() {
    const { window_id: id, window_index: index } = target
    const bySession = target.session_id !== undefined || target.session_name !== undefined
    if (id !== undefined && (bySession || index !== undefined)) {
      return yield* new ArgumentProblem({
        detail: "give window_id alone, or a session (session_id or session_name) with window_index"
      })
    }
    if (id === undefined && !(bySession && index !== undefined)) {
      return yield* new ArgumentProblem({
        detail:
          "give window_id, or a session (session_id or session_name) with window_index (call list_windows to see them)"
      })
    }
    const socket = yield* socketOf
    const session = id === undefined ? yield* resolveSession(target) : undefined
    const windows = yield* listWindowRows(session?.session_id).pipe(
      Effect.catchTag("ServerNotRunning", () =>
        Effect.fail(new WindowNotFound({ target: id ?? `index ${index}`, existing: [], socket, serverRunning: false })))
    )
    const found = windows.find((window) =>
      id !== undefined ? window.window_id === id : window.window_index === index
    )
    if (found !== undefined) return found
    return yield* new WindowNotFound({
      target: id ?? `index ${index} of session ${session!.session_id}`,
      existing: windows.map((window) =>
        `${window.window_id} (${window.session_id}:${window.window_index} ${JSON.stringify(window.window_name)})`
      ),
      socket,
      serverRunning: true
    })
  })

/** The pane `pane_id` names. */
export const resolvePane = Effect.fn("targets.resolvePane")(function*(paneId: PaneId) {
  const socket = yield* socketOf
  const panes = yield* listPaneRows("all").pipe(
    Effect.catchTag(
      "ServerNotRunning",
      () => Effect.fail(new PaneNotFound({ target: paneId, existing: [], socket, serverRunning: false }))
    )
  )
  const found = panes.find((pane) => pane.pane_id === paneId)
  if (found !== undefined) return found
  return yield* new PaneNotFound({
    target: paneId,
    existing: panes.map((pane) => pane.pane_id),
    socket,
    serverRunning: true
  })
})
