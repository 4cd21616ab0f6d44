/**
 * Serving, once startup decided: build the services, answer MCP on stdio until stdin ends, SIGINT
 * or SIGTERM, then close the services' scope. Loaded by main.ts while startup's tmux probes run,
 * so the protocol and the tools load in their shadow; stdout carries JSON-RPC only.
 */
import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { collectWhenIdle } from "./heap.ts"
import { logReady, makeServing } from "./serving.ts"
import type { StartupFacts } from "./startup/Startup.ts"
import { connect } from "./wire/McpServer.ts"
import { LineTransport } from "./wire/StdioLines.ts"

/** How long the stop path may take before the process exits anyway. */
const stopWithinMs = 1000

/**
 * A server a hub started (LIBTMUX_LINK_TIMEOUT, which the hub pings within) takes a silence that
 * long for a partition, which tells it nothing else: it stops as on EOF, so its runs stay held in
 * tmux for `resume`. After a pause (the process was stopped), messages that waited in the pipe are
 * read before the silence is judged.
 */
const exitWhenSilent = (seconds: number, exit: () => void) => {
  let heard = performance.now()
  process.stdin.on("data", () => void (heard = performance.now()))
  const arm = (waitMs: number): void =>
    void setTimeout(() =>
      setImmediate(() => {
        const left = seconds * 1000 - (performance.now() - heard)
        if (left <= 0) exit()
        else arm(left)
      }), waitMs).unref()
  arm(seconds * 1000)
}

/**
 * The gate of a hub's host: a run is collected once the hub answered a ping, so a run that ends
 * during a partition stays held (the server exits before the ping is answered) instead of being
 * answered into the dead link.
 */
const hubGate = (server: () => Server | undefined) => ({
  live: Effect.retry(
    Effect.tryPromise({ try: async () => void (await server()?.ping()), catch: () => "no answer" }),
    { schedule: Schedule.spaced("1 second") }
  ).pipe(Effect.ignore)
})

/** Serves until stopped; `onServing` runs once the server answers on stdin. */
export const serve = (facts: StartupFacts, onServing: () => void) =>
  Effect.gen(function*() {
    const idleSeconds = facts.config.hosts === undefined ? facts.config.linkTimeoutSeconds : undefined
    let built: Server | undefined
    const { server, log } = yield* makeServing(facts, {
      afterCall: collectWhenIdle,
      ...(idleSeconds === undefined ? {} : { gate: hubGate(() => built) })
    })
    built = server
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
    if (idleSeconds !== undefined) {
      exitWhenSilent(idleSeconds, () => {
        log.line("warning", `libtmux-mcp: no message from the hub for ${idleSeconds} s; exiting as on EOF`)
        stop()
      })
    }
    process.on("SIGINT", stop)
    process.on("SIGTERM", stop)
    yield* connect(
      server,
      new LineTransport(process.stdin, process.stdout, undefined, (text) => log.line("warning", text))
    )
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
