/**
 * A hub's hosts in the test's own process: HostSessions (src/hub/HostSessions.ts) whose links are
 * in-memory, each session served by a new in-process host server over its own tmux world, as the
 * bin started by ssh would be (LIBTMUX_LINK_TIMEOUT: it watches its link and stops on silence, and
 * its audit goes to a file in its world). A test breaks a host's link as the field does: `refuse`
 * (ssh cannot connect: its last line), `drop` (the link ends), `partition` / `heal` (nothing passes
 * either way, and as ssh's keep-alives would, the hub's side ends after the link timeout), `stall`
 * / `heal` (the host's server stopped: nothing passes, the link stays; what waited is delivered on
 * heal), `rewrite` (what the host answers, altered on the way).
 */
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import * as Layer from "effect/Layer"
import { join } from "node:path"
import { HostSessions } from "../../src/hub/HostSessions.ts"
import { type Served, serveInProcess } from "./inProcess.ts"
import type { TmuxWorld } from "./tmux.ts"

/** One in-memory host and the knobs that break its link. @category models */
export interface MemoryHost {
  readonly name: string
  readonly world: TmuxWorld
  /** Where its servers write their audit records. */
  readonly auditPath: string
  /** Settings its server starts with besides the world's (LIBTMUX_TOOLSETS, ...). */
  env: Record<string, string>
  /** While set, a session cannot start: ssh's last line says this. */
  refuse: string | undefined
  /** What the host answers, altered (undefined: dropped) on its way to the hub. */
  rewrite: ((message: JSONRPCMessage) => JSONRPCMessage | undefined) | undefined
  /** Sessions started so far. */
  readonly opened: () => number
  /** The current session's server, while it serves. */
  readonly server: () => Served | undefined
  /** The current session's link ends: the hub sees it close, the host's server its input end. */
  readonly drop: () => Promise<void>
  /** From now on nothing passes either way; after the link timeout the hub's side ends, as ssh's would. */
  readonly partition: () => void
  /** From now on nothing passes either way, and the link stays; `heal` delivers what waited, in order. */
  readonly stall: () => void
  readonly heal: () => void
  /** How many tool calls wait on their way to the host. */
  readonly waiting: () => number
  /** Stops every server its sessions started. */
  readonly stop: () => Promise<void>
}

/** A link that can be cut or held, over one side of an in-memory pair. */
class HeldLink implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  held = false
  /** The hub's side ended (a partition outlived the keep-alives): nothing passes any more. */
  private ended = false
  private toHost: Array<JSONRPCMessage> = []
  private toHub: Array<JSONRPCMessage> = []
  private readonly inner: Transport
  private readonly ready: () => Promise<void>
  private readonly rewrite: () => MemoryHost["rewrite"]

  constructor(inner: Transport, ready: () => Promise<void>, rewrite: () => MemoryHost["rewrite"]) {
    this.inner = inner
    this.ready = ready
    this.rewrite = rewrite
    inner.onmessage = (message) => {
      if (this.ended) return
      if (this.held) this.toHub.push(message)
      else this.deliver(message)
    }
    inner.onclose = () => this.onclose?.()
    inner.onerror = (error) => this.onerror?.(error)
  }

  private deliver(message: JSONRPCMessage) {
    const rewrite = this.rewrite()
    const altered = rewrite === undefined ? message : rewrite(message)
    if (altered !== undefined) this.onmessage?.(altered)
  }

  async start(): Promise<void> {
    await this.ready()
    await this.inner.start()
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.ended) throw new Error("Not connected")
    if (this.held) this.toHost.push(message)
    else await this.inner.send(message, options)
  }

  close(): Promise<void> {
    return this.inner.close()
  }

  /** Holds everything; after `endAfterMs` (when given) the hub's side ends while the host's hears nothing. */
  hold(endAfterMs?: number) {
    this.held = true
    if (endAfterMs === undefined) return
    setTimeout(() => {
      if (!this.held) return
      this.ended = true
      this.onclose?.()
    }, endAfterMs).unref()
  }

  waiting(): number {
    return this.toHost.filter((message) => "method" in message && message.method === "tools/call").length
  }

  heal() {
    if (this.ended) return
    this.held = false
    const [toHost, toHub] = [this.toHost, this.toHub]
    this.toHost = []
    this.toHub = []
    for (const message of toHost) void this.inner.send(message).catch(() => undefined)
    for (const message of toHub) this.deliver(message)
  }
}

/** A host with the way its sessions start. */
type OpeningHost = MemoryHost & {
  readonly open: (
    linkTimeout: number,
    selection: Readonly<Record<string, string>> | undefined
  ) => ReturnType<HostSessions["Service"]["open"]>
}

/** A host over `world` for `memorySessions`. */
export const memoryHost = (name: string, world: TmuxWorld): MemoryHost => {
  let opened = 0
  // The link timeout of the hub that opened the last session.
  let timeout = 0
  let link: HeldLink | undefined
  let served: Served | undefined
  const servers: Array<Served> = []
  const host: OpeningHost = {
    name,
    world,
    auditPath: join(world.dir, "audit.log"),
    env: {},
    refuse: undefined,
    rewrite: undefined,
    opened: () => opened,
    server: () => served,
    drop: async () => {
      await link?.close()
      await served?.close()
    },
    partition: () => link?.hold(timeout * 1000),
    stall: () => link?.hold(),
    heal: () => link?.heal(),
    waiting: () => link?.waiting() ?? 0,
    stop: async () => {
      for (const server of servers) await server.close()
    },
    open: (linkTimeout, selection) => {
      opened++
      timeout = linkTimeout
      const refusal = host.refuse
      if (refusal !== undefined) {
        const refused: Transport = {
          start: () => Promise.reject(new Error("Connection closed")),
          send: () => Promise.reject(new Error("Not connected")),
          close: () => Promise.resolve()
        }
        return { transport: refused, said: () => refusal }
      }
      const [hubSide, hostSide] = InMemoryTransport.createLinkedPair()
      let starting: Promise<void> | undefined
      const serve = async () => {
        const server = await serveInProcess(
          world,
          // As ssh starts it: the selection --host-toolsets gave it, the link timeout, and the test's settings.
          {
            ...selection,
            ...host.env,
            LIBTMUX_AUDIT_LOG: host.auditPath,
            LIBTMUX_LINK_TIMEOUT: String(linkTimeout)
          },
          [],
          hostSide
        )
        served = server
        servers.push(server)
        // Its input ended (the hub closed, the link dropped): the server stops as the bin on EOF.
        const closed = hostSide.onclose
        hostSide.onclose = () => {
          closed?.()
          void server.close()
        }
      }
      const current = new HeldLink(hubSide, () => starting ??= serve(), () => host.rewrite)
      link = current
      return { transport: current, said: () => undefined }
    }
  }
  return host
}

/** The hub's sessions to `hosts`, whose servers stop after `linkTimeout` seconds of silence. @category layers */
export const memorySessions = (hosts: ReadonlyArray<MemoryHost>, linkTimeout: number): Layer.Layer<HostSessions> =>
  Layer.succeed(
    HostSessions,
    HostSessions.of({
      open: (entry) => {
        const host = hosts.find((candidate) => candidate.name === entry.name)
        if (host === undefined) throw new Error(`no in-memory host ${entry.name}`)
        return (host as OpeningHost).open(linkTimeout, entry.selection)
      }
    })
  )
