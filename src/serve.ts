/**
 * Serving, once startup decided: build the services, answer MCP on stdio until stdin ends, SIGINT
 * or SIGTERM, then close the services' scope. Loaded by main.ts while startup's tmux probes run,
 * so the protocol and the tools load in their shadow; stdout carries JSON-RPC only.
 */
import * as Effect from "effect/Effect"
import { collectWhenIdle } from "./heap.ts"
import { logReady, makeServing } from "./serving.ts"
import type { StartupFacts } from "./startup/Startup.ts"
import { connect } from "./wire/McpServer.ts"
import { LineTransport } from "./wire/StdioLines.ts"

/** How long the stop path may take before the process exits anyway. */
const stopWithinMs = 1000

/** Serves until stopped; `onServing` runs once the server answers on stdin. */
export const serve = (facts: StartupFacts, onServing: () => void) =>
  Effect.gen(function*() {
    let transport: LineTransport | undefined
    const { server, local, log, hosted } = yield* makeServing(facts, {
      afterCall: collectWhenIdle,
      era: () => transport?.era()
    })
    const stopped = Promise.withResolvers<void>()
    let stopping = false
    const stop = () => {
      // stdin's "end" and "close" both arrive on EOF.
      if (stopping) return
      stopping = true
      stopped.resolve()
      // A finalizer that hangs must not keep the process: exit within a second whatever happens.
      setTimeout(() => process.exit(0), stopWithinMs).unref()
    }
    process.stdin.on("end", stop)
    process.stdin.on("close", stop)
    process.on("SIGINT", stop)
    process.on("SIGTERM", stop)
    transport = new LineTransport(process.stdin, process.stdout, undefined, (text) => log.line("warning", text))
    transport.serveLocally(local)
    yield* connect(server, transport)
    hosted?.watch(transport, () => {
      log.line("warning", `libtmux-mcp: no message from the hub for ${hosted.seconds} s; exiting as on EOF`)
      stop()
    })
    onServing()
    // A person who started it by hand sees what it waits for.
    if (process.stdin.isTTY) {
      log.line(
        "info",
        "libtmux-mcp: waiting for an MCP client on stdin (JSON-RPC); " +
          "this is a server for MCP clients: see --help and --print-config"
      )
    }
    logReady(facts, log, process.env)
    // Returning closes the scope the services were built in: their finalizers run (the tmux layer
    // deletes paste buffers an interrupted call left behind), then the process exits.
    yield* Effect.promise(() => stopped.promise)
    return "stopped" as const
  })
