/**
 * A hub: the same server with a registry wrapped around the local one. Every call names its host
 * (or goes to the default one); a call for this machine runs here, one for a remote host is sent
 * to the server there over its ssh session (hub/HostsLive.ts). Both are decoded and audited by the
 * local registry, with the host in the record; the tool's own hub rules (tools/define.ts `HubRules`)
 * say whether a lost call is sent again and which fields of an answer the hub rebuilds from its side.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { randomUUID } from "node:crypto"
import { type Act, type CallMeta, Registry } from "../dispatch/Registry.ts"
import { onlyReads } from "../domain/hostLink.ts"
import { type HostTable, localHost } from "../domain/hosts.ts"
import { withToolsets } from "../domain/hostToolsets.ts"
import { hostWatchCommandLine } from "../domain/watchCommand.ts"
import type { Toolset } from "../manifest/index.ts"
import { type CallError, errorMetaKey, HostCallFailed } from "../services/errors.ts"
import { Hosts } from "../services/Hosts.ts"
import type { HubSide, ToolDefinition } from "../tools/define.ts"
import { hostAnswer } from "./hostAnswer.ts"
import { hostRefusal } from "./hostParameter.ts"

/** What the hub takes from its own configuration. @category models */
export interface HubOptions {
  /** The longest wait this server allows, in seconds: a forwarded call gets that and room for the rest. */
  readonly waitMaxSeconds: number
  /** The hub's own toolsets: what a host without --host-toolsets offers. */
  readonly toolsets: ReadonlyArray<Toolset>
}

/** Whether a call whose session dropped under it is sent once more: the tool's rule, else whether it only reads. */
export const resendable = (definition: Pick<ToolDefinition, "row" | "hub">): boolean =>
  definition.hub?.resend ?? onlyReads(definition.row)

/** A call's host and its arguments without `host`. */
const routeOf = (table: HostTable, args: unknown) => {
  if (typeof args !== "object" || args === null || Array.isArray(args)) {
    return { given: undefined, host: table.defaultHost, args }
  }
  const { host, ...rest } = args as Record<string, unknown>
  return { given: host, host: typeof host === "string" ? host : table.defaultHost, args: rest }
}

/** The hub over the local registry, for `table`'s hosts. @category layers */
export const layer = (table: HostTable, options: HubOptions): Layer.Layer<Registry, never, Registry | Hosts> =>
  Layer.effect(
    Registry,
    Effect.gen(function*() {
      const local = yield* Registry
      const hosts = yield* Hosts
      const definitions = new Map(local.selected.map((definition) => [definition.row.name, definition]))

      /** Sends the decoded call to the host's server; its answer, or its error named with the host. */
      const forward = (host: string, hubCall: string, progress: CallMeta["progress"]): Act => (definition, decoded) =>
        Effect.gen(function*() {
          const input = (yield* decoded) as Record<string, unknown>
          const result = yield* hosts.call(host, definition.row.name, input, {
            // The call's time: the longest wait this server allows, and room for the rest (connect included).
            timeoutMs: (options.waitMaxSeconds + 30) * 1000,
            callId: hubCall,
            resend: resendable(definition),
            progress
          })
          if (result.isError === true) {
            const tag = result._meta?.[errorMetaKey]
            const text = result.content.map((part) => part.type === "text" ? part.text : "").join("\n")
            return yield* new HostCallFailed({ host, tag: typeof tag === "string" ? tag : "Unknown", text })
          }
          return yield* hostAnswer(host, definition, result.structuredContent)
        })

      /** What the hub knows from its side about a call that went to `host`. */
      const sideOf = (host: string): HubSide => {
        const remote = table.remotes.find((entry) => entry.name === host)
        return {
          host,
          remoteWatchCommand: remote === undefined ? undefined : (runId, paneId) =>
            hostWatchCommandLine({
              ssh: { destination: remote.destination, port: remote.port, sshConfig: table.sshConfig },
              entry: remote.command,
              runId,
              paneId
            }),
          hosts: Effect.map(hosts.states, (states) => withToolsets(table.toolsets, options.toolsets, states))
        }
      }

      const call = Effect.fn("Hub.call")(function*(name: string, args: unknown, meta: CallMeta = {}) {
        const definition = definitions.get(name)
        // Not selected here: the local registry refuses it and records the refusal.
        if (definition === undefined) return yield* local.call(name, args, meta)
        const route = routeOf(table, args)
        // Security: a host --host-toolsets narrows away from the tool is refused here, before anything is sent.
        const refusal: CallError | undefined = hostRefusal(table, name, route.given)
        const hubCall = refusal === undefined && route.host !== localHost ? randomUUID() : undefined
        const via: Act | undefined = refusal !== undefined
          ? () => Effect.fail(refusal)
          : hubCall === undefined
          ? undefined
          : forward(route.host, hubCall, meta.progress)
        const outcome = yield* local.call(name, route.args, {
          ...meta,
          recorded: { ...meta.recorded, host: route.host, ...(hubCall === undefined ? {} : { hub_call: hubCall }) },
          via
        })
        if (outcome._tag === "Failure") return outcome
        const side = sideOf(route.host)
        const answer = definition.hub?.answer === undefined
          ? outcome.structured
          : yield* definition.hub.answer(outcome.structured, side)
        return { _tag: "Success", structured: { ...answer, host: route.host } } as const
      })

      return Registry.of({ selected: local.selected, nestedAuthority: local.nestedAuthority, call })
    })
  )
