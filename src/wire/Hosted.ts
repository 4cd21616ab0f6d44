/**
 * The hosted side: what a server a hub started (LIBTMUX_LINK_TIMEOUT, which the hub pings within)
 * does about its link, chosen at startup. A partition tells it nothing, so it takes that much
 * silence for one and stops as on end of input (its runs stay held in tmux for `resume`); and it
 * collects a run only once the hub answered a ping, so a run that ends during a partition stays
 * held instead of being answered into the dead link.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type { LinkGate } from "../services/LinkGate.ts"
import type { StartupFacts } from "../startup/Startup.ts"

/** What a hosted server adds to serving. @category models */
export interface HostedSide {
  /** The link's idle limit, in seconds. */
  readonly seconds: number
  /** The gate a collection passes: the hub answered a ping. */
  readonly gate: Context.Service.Shape<typeof LinkGate>
  /**
   * Calls `onSilent` once the transport brought no message for `seconds`. After a pause (the process
   * was stopped), messages that waited are read before the silence is judged.
   */
  readonly watch: (transport: Transport, onSilent: () => void) => void
}

/** The hosted side for `facts`, or undefined for a server no hub started (and for a hub itself). */
export const hostedSide = (facts: StartupFacts, server: () => Server | undefined): HostedSide | undefined => {
  const seconds = facts.config.hosts === undefined ? facts.config.linkTimeoutSeconds : undefined
  if (seconds === undefined) return undefined
  return {
    seconds,
    gate: {
      live: Effect.retry(
        Effect.tryPromise({ try: async () => void (await server()?.ping()), catch: () => "no answer" }),
        { schedule: Schedule.spaced("1 second") }
      ).pipe(Effect.ignore)
    },
    watch: (transport, onSilent) => {
      let heard = performance.now()
      const deliver = transport.onmessage
      transport.onmessage = (message, extra) => {
        heard = performance.now()
        deliver?.(message, extra)
      }
      const arm = (waitMs: number): void =>
        void setTimeout(() =>
          // Behind the I/O callbacks already due: a stopped process reads what waited first.
          setImmediate(() => {
            const left = seconds * 1000 - (performance.now() - heard)
            if (left <= 0) onSilent()
            else arm(left)
          }), waitMs).unref()
      arm(seconds * 1000)
    }
  }
}
