/**
 * The entry point: decide the configuration, build the services, serve MCP on stdio, and exit 0
 * at once on stdin end, SIGINT or SIGTERM: closing the scope interrupts the calls in flight and
 * waits for them, then the services' finalizers run; the tmux server keeps running. stdout carries JSON-RPC only;
 * everything else goes to stderr.
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { realpathSync } from "node:fs"
import { clientConfigNotes, renderClientConfig } from "./domain/clientConfig.ts"
import { helpText, unknownSettingWarnings } from "./domain/config.ts"
import { reportFailure } from "./failure.ts"
import { collectWhenIdle } from "./heap.ts"
import { capabilitiesDocument, instructions, readyLine, warningLines } from "./layers/Disclosure.ts"
import { connect, makeServer } from "./layers/McpServer.ts"
import { nodeProblem } from "./layers/NodeCheck.ts"
import { logLine } from "./layers/ServerLog.ts"
import * as Services from "./layers/Services.ts"
import { startup } from "./layers/Startup.ts"
import { LineTransport } from "./layers/StdioLines.ts"
import { advertisedSchemas } from "./layers/toolSchemas.generated.ts"
import { Audit } from "./services/Audit.ts"
import { version } from "./version.ts"

/** How long the stop path may take before the process exits anyway. */
const stopWithinMs = 1000

/** Whether the server answers on stdin yet: a failure before is a failed start. */
let serving = false

const program = Effect.gen(function*() {
  const decided = yield* startup(process.env, process.argv.slice(2), process.getuid?.() ?? 0)
  if (decided.kind === "help") return void process.stdout.write(`${helpText(version)}\n`)
  if (decided.kind === "version") return void process.stdout.write(`libtmux-mcp ${version}\n`)
  if (decided.kind === "print-config") {
    const bin = realpathSync(process.argv[1] ?? "")
    const problem = decided.node === undefined ? undefined : nodeProblem(decided.node)
    if (problem !== undefined) {
      process.stderr.write(`libtmux-mcp: ${problem}\n`)
      return void (process.exitCode = 1)
    }
    const node = decided.node ?? process.execPath
    for (const note of clientConfigNotes(decided, node)) process.stderr.write(`${note}\n`)
    return void process.stdout.write(`${renderClientConfig(decided, node, bin)}\n`)
  }
  const { facts } = decided
  const context = yield* Layer.build(Services.layer(facts))
  // Built after the services, in the same scope: its calls are interrupted and awaited before they close.
  const server = yield* makeServer(context, {
    version,
    instructions: instructions(facts),
    capabilities: () =>
      JSON.stringify(capabilitiesDocument(facts, Effect.runSync(Context.get(context, Audit).status)), null, 2),
    afterCall: collectWhenIdle,
    advertised: advertisedSchemas
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
  yield* connect(server, new LineTransport())
  serving = true
  // A person who started it by hand sees what it waits for.
  if (process.stdin.isTTY) {
    logLine(
      "info",
      "libtmux-mcp: waiting for an MCP client on stdin (JSON-RPC); " +
        "this is a server for MCP clients: see --help and --print-config"
    )
  }
  logLine("info", readyLine(facts))
  for (const warning of [...warningLines(facts), ...unknownSettingWarnings(process.env)]) logLine("warning", warning)
  // Returning closes the scope the services were built in: their finalizers run (the tmux layer
  // deletes paste buffers an interrupted call left behind), then the process exits.
  yield* Effect.promise(() => stopped.promise)
  return "stopped" as const
})

/** Runs the server process. */
export const main = (): void => {
  Effect.runFork(
    Effect.scoped(program).pipe(
      Effect.tap((outcome) =>
        Effect.sync(() => {
          // Let interrupted calls kill their tmux children before the process goes.
          if (outcome === "stopped") setImmediate(() => process.exit(0))
        })
      ),
      Effect.catchTag("StartupError", (error) =>
        Effect.sync(() => {
          process.stderr.write(`libtmux-mcp: ${error.message}\n`)
          process.exitCode = 1
        })),
      // A defect (a dependency that does not resolve, a bug) would otherwise end the fiber silently
      // and the process with 0: say what failed, and exit 1.
      Effect.catchCause((cause) =>
        Effect.sync(() => {
          if (Cause.hasInterruptsOnly(cause)) return
          reportFailure(serving ? "serving" : "starting the server", Cause.squash(cause))
          // The scope is closed; stdin's listeners must not keep a server that no longer serves.
          setImmediate(() => process.exit(1))
        })
      )
    )
  )
}
