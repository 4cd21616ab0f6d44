/**
 * Whether this server's client is still there, asked before a run is collected: a run's result is
 * given once, so it must not go into a channel nobody reads. A server a hub started (over a link
 * that may be partitioned, which tells it nothing) asks the hub; any other answers at once.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/** The gate a collection passes. @category services */
export const LinkGate = Context.Reference<{
  /** Succeeds once the client answered; on a dead link it waits until the server stops (the run stays held). */
  readonly live: Effect.Effect<void>
}>("libtmux-mcp/services/LinkGate", { defaultValue: () => ({ live: Effect.void }) })
