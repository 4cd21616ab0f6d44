/**
 * The self-kill guard: the teardown tools (and respawn_pane) refuse the pane, window or session
 * that contains this server process, when that pane is on the pinned socket. It covers these typed
 * tools only, not an equivalent command typed through an execute tool, nor a pane moved at the same
 * moment by another tmux client.
 *
 * A check and its kill are not one tmux command, so a concurrent swap_pane or move_window could
 * carry this server's pane into a window between them. Guarded kills and the tools that move panes
 * between windows or sessions therefore run one at a time, each from its check to its act.
 */
import * as Effect from "effect/Effect"
import * as Semaphore from "effect/Semaphore"
import { SelfKillRefused } from "../services/errors.ts"
import { ServerPane } from "../services/ServerPane.ts"

// One per process: every registry in it guards the same process's pane.
const structureLock = Semaphore.makeUnsafe(1)

/**
 * Runs a guarded kill (its check and its act) or a move of panes between windows or sessions, one
 * at a time. Only while this server runs in a pane on the pinned socket: otherwise nothing can
 * reach its pane and nothing waits.
 */
export const oneAtATime = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | ServerPane> =>
  ServerPane.use((caller) =>
    caller.onPinnedSocket && caller.paneId !== undefined ? structureLock.withPermit(effect) : effect
  )

/**
 * Fails when the caller's own pane is among `paneIds`. The panes are read only when this server
 * runs in a pane on the pinned socket, so the common case costs no tmux call. Call it inside
 * `oneAtATime` together with the act it guards.
 */
export const refuseOwnPane = <E, R>(target: string, paneIds: Effect.Effect<ReadonlyArray<string>, E, R>) =>
  Effect.gen(function*() {
    const caller = yield* ServerPane
    if (!caller.onPinnedSocket || caller.paneId === undefined) return
    if ((yield* paneIds).includes(caller.paneId)) {
      return yield* new SelfKillRefused({ target, callerPane: caller.paneId })
    }
  })
