/**
 * Composition: the live services a registry needs, built from what startup decided.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Registry from "./dispatch/Registry.ts"
import { defaultLinkTimeoutSeconds, keepAliveSeconds } from "./domain/hostLink.ts"
import type { HostSessions } from "./hub/HostSessions.ts"
import * as AuditLive from "./layers/AuditLive.ts"
import * as PaneProcessLive from "./layers/PaneProcessLive.ts"
import * as PaneReaderLive from "./layers/PaneReaderLive.ts"
import * as RecorderLive from "./layers/RecorderLive.ts"
import * as RegexLive from "./layers/RegexLive.ts"
import * as ServerLogLive from "./layers/ServerLogLive.ts"
import * as ServerPaneLive from "./layers/ServerPaneLive.ts"
import * as ShellRunsLive from "./layers/ShellRunsLive.ts"
import * as TmuxLive from "./layers/TmuxLive.ts"
import { entryWords } from "./platform/entry.ts"
import type { Audit } from "./services/Audit.ts"
import { Config } from "./services/Config.ts"
import type { Recorder } from "./services/Recorder.ts"
import type { ServerLog } from "./services/ServerLog.ts"
import { SocketPin } from "./services/SocketPin.ts"
import type { StartupFacts } from "./startup/Startup.ts"
import { version } from "./version.ts"

/** Services an embedding host may bring instead of the live ones. @category models */
export interface ServiceReplacements {
  /** Where audit records go (intent before a call acts, outcome after). */
  readonly audit?: Layer.Layer<Audit>
  /** Where the server's log lines go (the audit's move to its fallback file, for one). */
  readonly log?: Layer.Layer<ServerLog>
  /** How a hub reaches its hosts (the live way runs ssh). */
  readonly hostSessions?: Layer.Layer<HostSessions>
}

/**
 * The registry with every live service it needs, the audit sink and the recorder (whose status the
 * capabilities show) and the log (which the MCP wire also writes to).
 * @category layers
 */
export const layer = (
  facts: StartupFacts,
  replacements: ServiceReplacements = {}
): Layer.Layer<Registry.Registry | Audit | Recorder | ServerLog> => {
  const base = Layer.mergeAll(
    Layer.succeed(
      Config,
      Config.of({
        config: facts.config,
        selection: facts.selection,
        version,
        tmuxPath: facts.tmuxPath,
        ...((entry) => entry === undefined ? {} : { entry })(entryWords())
      })
    ),
    Layer.succeed(SocketPin, SocketPin.of(facts.pin)),
    RegexLive.layer,
    PaneProcessLive.layer,
    ShellRunsLive.layer
  )
  const tmux = TmuxLive.layer(facts.config.tmuxBin, facts.config.transport).pipe(Layer.provideMerge(base))
  const caller = ServerPaneLive.layer(
    facts.caller,
    ServerPaneLive.liveLookup(facts.pin.serverStateAtStartup === "existing")
  ).pipe(Layer.provideMerge(tmux))
  // Recording (LIBTMUX_RECORD) reads panes through tmux's pipes, set up by the server's own runner.
  const record = facts.config.record
  // One instance (layers are memoized by reference): the registry's, and the one the capabilities read.
  const recorder = (record === undefined ? RecorderLive.off : RecorderLive.layer(record)).pipe(Layer.provide(caller))
  const local = Registry.layer.pipe(
    Layer.provide(PaneReaderLive.layer.pipe(Layer.provideMerge(caller))),
    Layer.provide(recorder)
  )
  // A hub wraps the local registry; its SDK client and ssh transport are loaded only for a hub.
  const table = facts.config.hosts
  const served = table === undefined ? local : Layer.unwrap(
    Effect.map(
      Effect.promise(() =>
        Promise.all([import("./hub/Hub.ts"), import("./hub/HostsLive.ts"), import("./hub/HostSessions.ts")])
      ),
      ([hub, hosts, sessions]) => {
        const seconds = facts.config.linkTimeoutSeconds ?? defaultLinkTimeoutSeconds
        const link = { aliveSeconds: keepAliveSeconds(seconds), connectSeconds: seconds }
        return hub.layer(table, { waitMaxSeconds: facts.config.waitMaxSeconds, toolsets: facts.selection.toolsets })
          .pipe(
            Layer.provide(hosts.layer(table, seconds)),
            Layer.provide(
              replacements.hostSessions ?? sessions.sshLayer(table, facts.config.selectionGiven ?? {}, link)
            ),
            Layer.provide(local)
          )
      }
    )
  )
  return Layer.merge(served, recorder).pipe(
    Layer.provideMerge(replacements.audit ?? AuditLive.layer(facts.audit, process.getuid?.() ?? 0)),
    Layer.provideMerge(replacements.log ?? ServerLogLive.layer)
  )
}
