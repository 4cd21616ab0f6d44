/**
 * The self guards: tools refuse to kill, or to type into, the pane that contains this server
 * process, when that pane is on the pinned socket (ServerPane says which). They cover these typed
 * tools only, not an equivalent command typed through an execute tool, another tmux client, or a
 * pane moved at the same moment by another tmux client.
 *
 * The kill guard: the teardown tools (and respawn_pane) refuse the pane, window or session that
 * contains it. A check and its kill are not one tmux command, so a concurrent swap_pane or
 * move_window could carry this server's pane into a window between them. Guarded kills and the
 * tools that move panes between windows or sessions therefore run one at a time, each from its
 * check to its act.
 *
 * The input guard: every tool that types into a pane's program (the manifest's `typesIntoPane`)
 * refuses the caller's pane, and a pane whose window has synchronize-panes on and holds the
 * caller's pane, before anything is sent. The registry applies it from the row.
 */
import * as Effect from "effect/Effect"
import type { PaneId } from "../domain/ids.ts"
import { SelfInputRefused, SelfKillRefused } from "../services/errors.ts"
import { ServerPane } from "../services/ServerPane.ts"
import { TmuxObserve } from "../services/Tmux.ts"
import { parseTargets, targetReads } from "./keys.ts"
import { orPaneNotFound } from "./pane.ts"

const ownPanes = ServerPane.use((caller) => caller.panes)

/**
 * Runs a guarded kill (its check and its act) or a move of panes between windows or sessions, one
 * at a time. Only while this server runs in a pane on the pinned socket: otherwise nothing can
 * reach its pane and nothing waits.
 */
export const oneAtATime = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  ServerPane.use((caller) => Effect.flatMap(caller.panes, (own) => own.length > 0 ? caller.oneAtATime(effect) : effect))

/**
 * Fails when the caller's own pane is among `paneIds`. The panes are read only when this server
 * runs in a pane on the pinned socket, so the common case costs no tmux call. Call it inside
 * `oneAtATime` together with the act it guards.
 */
export const refuseOwnPane = <E, R>(target: string, paneIds: Effect.Effect<ReadonlyArray<string>, E, R>) =>
  Effect.gen(function*() {
    const own = yield* ownPanes
    if (own.length === 0) return
    const listed = yield* paneIds
    const callerPane = own.find((pane) => listed.includes(pane))
    if (callerPane !== undefined) return yield* new SelfKillRefused({ target, callerPane })
  })

/**
 * Fails, before anything is sent, when input to one of `paneIds` would reach a pane that contains
 * this server: the pane itself, or any pane of a window with synchronize-panes on that holds it
 * (tmux copies send-keys to every pane of such a window). Costs no tmux call unless this server
 * runs in a pane on the pinned socket. The window read and the send are separate tmux commands:
 * synchronize-panes turned on, or the caller's pane moved in, between them is not seen.
 */
export const refuseOwnInput = Effect.fn("guard.refuseOwnInput")(
  function*(tool: string, paneIds: ReadonlyArray<PaneId>) {
    const own = yield* ownPanes
    if (own.length === 0) return
    for (const target of paneIds) {
      if (own.includes(target)) {
        return yield* new SelfInputRefused({ tool, target, callerPane: target, synchronized: false })
      }
    }
    const observe = yield* TmuxObserve
    for (const target of paneIds) {
      const stdout = yield* observe.run(targetReads(target)).pipe(orPaneNotFound(target))
      const reach = parseTargets(target, stdout)
      const callerPane = reach.synchronized ? own.find((pane) => reach.targets.includes(pane)) : undefined
      if (callerPane !== undefined) {
        return yield* new SelfInputRefused({ tool, target, callerPane, synchronized: true })
      }
    }
  }
)
