/**
 * Finds the panes on the pinned socket that contain this process: `TMUX_PANE` when its `TMUX`
 * socket is the pinned one, and the panes the process tree names (see domain/processTree.ts),
 * read with one `list-panes -a` on the first call that needs them.
 *
 * Why on first need and then kept: startup stays free of tmux calls, and the answer cannot change.
 * A pane that contains this process existed before it started, so when no server answered at
 * startup there is none and tmux is never asked. A living ancestor stays an ancestor (a process is
 * reparented only when its parent dies), and the controlling terminal stays the same, so a later
 * walk finds what an earlier one would have. A failed read is not kept: the next call asks again.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Semaphore from "effect/Semaphore"
import { type PaneProcessRow, panesContaining, type ProcessReader } from "../domain/processTree.ts"
import { processReader } from "../platform/Proc.ts"
import { type PaneFromEnvironment, ServerPane } from "../services/ServerPane.ts"
import { TmuxObserve } from "../services/Tmux.ts"
import { formatOf, parseRows } from "../services/TmuxReads.ts"

const processFields = { pane_id: "string", pane_pid: "int", pane_tty: "string" } as const

/** How this process is found among the panes. @category models */
export interface Lookup {
  /** Whether a tmux server answered on the pinned socket at startup. */
  readonly serverAtStartup: boolean
  /** The process to find (this one). */
  readonly pid: number
  /** Where the process tree is read (/proc). */
  readonly reader: ProcessReader
}

/** The live service. @category layers */
export const layer = (
  environment: PaneFromEnvironment,
  lookup: Lookup
): Layer.Layer<ServerPane, never, TmuxObserve> =>
  Layer.effect(
    ServerPane,
    Effect.gen(function*() {
      const observe = yield* TmuxObserve
      const named = environment.onPinnedSocket && environment.paneId !== undefined ? [environment.paneId] : []
      const fromTree = Effect.gen(function*() {
        const stdout = yield* observe.run([["list-panes", "-a", "-F", formatOf(processFields)]])
        const rows: ReadonlyArray<PaneProcessRow> = yield* parseRows(processFields, "list-panes", stdout)
        return panesContaining(rows, lookup.pid, lookup.reader)
      }).pipe(
        // The server has gone since startup, and with it every pane that could contain this process.
        Effect.catchTag("ServerNotRunning", () => Effect.succeed([]))
      )
      const found = lookup.serverAtStartup
        ? yield* Effect.cachedWithTTL(fromTree, (exit) => Exit.isSuccess(exit) ? Duration.infinity : Duration.zero)
        : Effect.succeed([])
      // One per registry: its kills and moves take turns (another instance's are not seen).
      const structure = yield* Semaphore.make(1)
      return ServerPane.of({
        panes: Effect.map(found, (panes) => [...new Set([...named, ...panes])]),
        oneAtATime: (effect) => structure.withPermit(effect)
      })
    })
  )

/** The live lookup of this process. @category constructors */
export const liveLookup = (serverAtStartup: boolean): Lookup => ({
  serverAtStartup,
  pid: process.pid,
  reader: processReader
})
