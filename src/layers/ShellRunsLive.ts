/**
 * The live run registry: plain maps (runs, collected IDs, the views kept of panes), and one
 * single-permit semaphore per pane for the turns.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Semaphore from "effect/Semaphore"
import type { PaneId } from "../domain/ids.ts"
import { type HeldView, type Run, type RunLookup, ShellRuns } from "../services/ShellRuns.ts"

/** How many collected run IDs are remembered, to tell "already collected" from "unknown". */
const collectedMemory = 1_000

/**
 * A fresh registry, and how many panes it keeps a turn for. A pane's turn is kept only while a call
 * holds or waits for it: a pane that is gone leaves nothing behind.
 * @category constructors
 */
export const make = () => {
  const turns = new Map<string, { readonly semaphore: Semaphore.Semaphore; users: number }>()
  const pending = new Map<string, Run>()
  const collected = new Map<string, PaneId>()
  const views = new Map<string, HeldView>()
  const enter = (paneId: PaneId) => {
    let turn = turns.get(paneId)
    if (turn === undefined) turns.set(paneId, turn = { semaphore: Semaphore.makeUnsafe(1), users: 0 })
    turn.users++
    return turn
  }
  const leave = (paneId: PaneId, turn: { users: number }) =>
    Effect.sync(() => {
      if (--turn.users === 0 && turns.get(paneId) === turn) turns.delete(paneId)
    })
  const service = ShellRuns.of({
    exclusive: (paneId, timeoutMs, effect) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const turn = enter(paneId)
          return yield* Effect.gen(function*() {
            const got = yield* restore(Effect.timeoutOption(turn.semaphore.take(1), Math.max(0, timeoutMs)))
            if (Option.isNone(got)) return Option.none()
            return yield* restore(effect).pipe(Effect.map(Option.some), Effect.ensuring(turn.semaphore.release(1)))
          }).pipe(Effect.ensuring(leave(paneId, turn)))
        })
      ).pipe(Effect.withSpan("ShellRuns.exclusive", { attributes: { pane_id: paneId } })),
    lookup: (runId) =>
      Effect.sync((): RunLookup => {
        const run = pending.get(runId)
        if (run !== undefined) return { _tag: "Pending", run }
        const paneId = collected.get(runId)
        return paneId === undefined ? { _tag: "Unknown" } : { _tag: "Collected", paneId }
      }),
    hold: (run) => Effect.sync(() => void pending.set(run.id, run)),
    collect: (run) =>
      Effect.sync(() => {
        pending.delete(run.id)
        collected.set(run.id, run.paneId)
        if (collected.size > collectedMemory) collected.delete(collected.keys().next().value!)
      }),
    keepView: (paneId, view) =>
      Effect.sync(() => {
        views.delete(paneId)
        views.set(paneId, view)
        if (views.size > collectedMemory) views.delete(views.keys().next().value!)
      }),
    takeView: (paneId) =>
      Effect.sync(() => {
        const view = views.get(paneId)
        views.delete(paneId)
        return view
      })
  })
  return { service, turns: () => turns.size }
}

/** A fresh registry. @category layers */
export const layer: Layer.Layer<ShellRuns> = Layer.sync(ShellRuns, () => make().service)
