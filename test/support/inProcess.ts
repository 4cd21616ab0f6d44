/**
 * The server in the test's own process: the same startup decisions, services and MCP server as the
 * built bin (src/serving.ts), reached by the SDK's real `Client` over an in-memory transport, with
 * no process to start (a third of a second of processor time each). For tests about what the tools
 * do to tmux; what is about stdio, startup output, signals or the process itself starts the bin.
 * Two in-process servers share the test process's ID, so tests of servers that meet on one socket
 * start the bin too.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import type { ServiceReplacements } from "../../src/composition.ts"
import { decide } from "../../src/decide.ts"
import * as AuditLive from "../../src/layers/AuditLive.ts"
import { type FdIo, nodeIo } from "../../src/platform/AuditWrite.ts"
import { makeServerLog } from "../../src/platform/ServerLog.ts"
import { ServerLog } from "../../src/services/ServerLog.ts"
import { logReady, makeServing } from "../../src/serving.ts"
import { connect as connectTransport } from "../../src/wire/McpServer.ts"
import { type Connected, serverEnv } from "./mcp.ts"
import type { TmuxWorld } from "./tmux.ts"

/** A server serving in the test's process over a transport. */
export interface Served {
  /** What the bin would have printed on stderr. */
  readonly stderr: () => string
  /** As the bin on EOF: the calls in flight are interrupted and awaited, the services close, the link ends. */
  readonly close: () => Promise<void>
}

/**
 * Builds the server for a world's environment plus overrides and serves it over `transport`. A
 * server a hub starts (LIBTMUX_LINK_TIMEOUT) watches its link as the bin does and stops as on EOF
 * when it stays silent; `replacements` are services to use instead of the live ones.
 */
export const serveInProcess = async (
  world: TmuxWorld,
  overrides: Readonly<Record<string, string | undefined>>,
  args: ReadonlyArray<string>,
  transport: Transport,
  replacements: Omit<ServiceReplacements, "log" | "audit"> = {}
): Promise<Served> => {
  const env = serverEnv(world, overrides)
  // What the bin would print on stderr, kept for the test instead.
  let stderr = ""
  const lines = makeServerLog()
  const logged = ServerLog.of({
    line: (level, text, write = (line) => void (stderr += line)) => lines.line(level, text, write),
    listen: lines.listen
  })
  // The audit's records on "stderr" (fd 2) go there too; a file's are written as the bin writes them.
  const io: FdIo = {
    ...nodeIo,
    write: (fd, bytes) => {
      if (fd !== 2) return nodeIo.write(fd, bytes)
      stderr += Buffer.from(bytes).toString("utf8")
      return Promise.resolve(bytes.length)
    }
  }
  const scope = Effect.runSync(Scope.make())
  const run = <A, E>(effect: Effect.Effect<A, E, Scope.Scope>) =>
    Effect.runPromise(effect.pipe(Scope.provide(scope), Effect.withTracerEnabled(false)))
  let closed: Promise<void> | undefined
  // As the process exits after: its end of the link closes.
  const close = () =>
    closed ??= Effect.runPromise(Scope.close(scope, Exit.void)).finally(() => transport.close().catch(() => undefined))
  try {
    const facts = await run(decide({ env, argv: args }))
    const log = Layer.succeed(ServerLog, logged)
    const audit = AuditLive.layer(facts.audit, process.getuid?.() ?? 0, io).pipe(Layer.provide(log))
    const { server, hosted } = await run(makeServing(facts, { replacements: { ...replacements, log, audit } }))
    await run(connectTransport(server, transport))
    hosted?.watch(transport, () => {
      logged.line("warning", `libtmux-mcp: no message from the hub for ${hosted.seconds} s; exiting as on EOF`)
      void close()
    })
    logReady(facts, logged, env)
  } catch (error) {
    await close()
    throw error
  }
  return { stderr: () => stderr, close }
}

/** Builds the server for a world's environment plus overrides, and connects a client declaring `capabilities` to it. */
export const connectInProcess = async (
  world: TmuxWorld,
  overrides: Readonly<Record<string, string | undefined>> = {},
  args: ReadonlyArray<string> = [],
  replacements: Omit<ServiceReplacements, "log" | "audit"> = {},
  capabilities: ClientCapabilities = {}
): Promise<Connected> => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const client = new Client({ name: "libtmux-mcp-tests", version: "0.0.0" }, { capabilities })
  const served = await serveInProcess(world, overrides, args, serverSide, replacements)
  try {
    await client.connect(clientSide)
  } catch (error) {
    await served.close()
    throw error
  }
  let closed: Promise<void> | undefined
  return {
    client,
    stderr: served.stderr,
    // As the bin on EOF: the calls in flight are interrupted and awaited, then the services close
    // (whatever the client's close did).
    close: () => closed ??= client.close().finally(served.close)
  }
}
