/**
 * The self-kill guard: the teardown tools (and respawn_pane) refuse the pane, window or session
 * that contains this server process, when that pane is on the pinned socket. It covers these typed
 * tools only, not an equivalent command typed through an execute tool.
 */
import * as Effect from "effect/Effect"
import { CallerContext } from "../services/CallerContext.ts"
import { SelfKillRefused } from "../services/errors.ts"

/**
 * Fails when the caller's own pane is among `paneIds`. The panes are read only when this server
 * runs in a pane on the pinned socket, so the common case costs no tmux call.
 */
export const refuseOwnPane = <E, R>(target: string, paneIds: Effect.Effect<ReadonlyArray<string>, E, R>) =>
  Effect.gen(function*() {
    const caller = yield* CallerContext
    if (!caller.onPinnedSocket || caller.paneId === undefined) return
    if ((yield* paneIds).includes(caller.paneId)) return yield* new SelfKillRefused({ target, callerPane: caller.paneId })
  })
