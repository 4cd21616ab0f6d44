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

/** A fresh registry. @category layers */
export const layer: Layer.Layer<ShellRuns> = Layer.sync(ShellRuns, () => {
  const turns = new Map<string, Semaphore.Semaphore>()
  const pending = new Map<string, Run>()
  const collected = new Map<string, PaneId>()
  const views = new Map<string, HeldView>()
  const turn = (paneId: PaneId) => {
    let semaphore = turns.get(paneId)
    if (semaphore === undefined) turns.set(paneId, semaphore = Semaphore.makeUnsafe(1))
    return semaphore
  }
  return ShellRuns.of({
    exclusive: (paneId, timeoutMs, effect) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          const semaphore = turn(paneId)
          const got = yield* restore(Effect.timeoutOption(semaphore.take(1), Math.max(0, timeoutMs)))
          if (Option.isNone(got)) return Option.none()
          return yield* restore(effect).pipe(Effect.map(Option.some), Effect.ensuring(semaphore.release(1)))
        })
      ),
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
})
