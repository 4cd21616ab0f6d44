/**
 * The entry point: decide the configuration, build the services, serve MCP on stdio, and exit 0
 * at once on stdin end, SIGINT or SIGTERM, interrupting calls in flight and leaving the tmux
 * server running. stdout carries JSON-RPC only; everything else goes to stderr.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { capabilitiesDocument, instructions, readyLine, warningLines } from "./layers/Disclosure.ts"
import { connect, makeServer } from "./layers/McpServer.ts"
import * as Services from "./layers/Services.ts"
import { logLine } from "./layers/ServerLog.ts"
import { LineTransport } from "./layers/StdioLines.ts"
import { advertisedSchemas } from "./layers/toolSchemas.generated.ts"
import { startup, type StartupFacts } from "./layers/Startup.ts"
import { buildArgv } from "./layers/TmuxExec.ts"
import { Audit } from "./services/Audit.ts"
import { bufferPrefix } from "./tools/execute/paste_text.ts"
import { execFileSync } from "node:child_process"
import { realpathSync } from "node:fs"
import { clientConfigNotes, renderClientConfig } from "./domain/clientConfig.ts"
import { helpText } from "./domain/config.ts"
import { collectWhenIdle } from "./heap.ts"
import { version } from "./version.ts"

const program = Effect.gen(function*() {
  const decided = yield* startup(process.env, process.argv.slice(2), process.getuid?.() ?? 0)
  if (decided.kind === "help") return void process.stdout.write(`${helpText(version)}\n`)
  if (decided.kind === "version") return void process.stdout.write(`libtmux-mcp ${version}\n`)
  if (decided.kind === "print-config") {
    const bin = realpathSync(process.argv[1] ?? "")
    for (const note of clientConfigNotes(decided.client, process.execPath, decided.inheritedSocket, decided.remote)) process.stderr.write(`${note}\n`)
    return void process.stdout.write(`${renderClientConfig(decided.client, process.execPath, bin, decided.env, decided.remote)}\n`)
  }
  const { facts } = decided
  const context = yield* Layer.build(Services.layer(facts))
  const shutdown = new AbortController()
  const server = makeServer(context, {
    version,
    instructions: instructions(facts),
    capabilities: () => JSON.stringify(capabilitiesDocument(facts, Effect.runSync(Context.get(context, Audit).status)), null, 2),
    shutdown: shutdown.signal,
    afterCall: collectWhenIdle,
    advertised: advertisedSchemas
  })
  const stop = () => {
    // stdin's "end" and "close" both arrive on EOF.
    if (shutdown.signal.aborted) return
    shutdown.abort()
    removePasteBuffers(facts)
    // Let interrupted calls kill their tmux children before the process goes.
    setImmediate(() => process.exit(0))
  }
  process.stdin.on("end", stop)
  process.stdin.on("close", stop)
  process.on("SIGINT", stop)
  process.on("SIGTERM", stop)
  yield* connect(server, new LineTransport())
  // A person who started it by hand sees what it waits for.
  if (process.stdin.isTTY) logLine("info", "libtmux-mcp: waiting for an MCP client on stdin (JSON-RPC); this is a server for MCP clients: see --help and --print-config")
  logLine("info", readyLine(facts))
  for (const warning of warningLines(facts)) logLine("warning", warning)
  return yield* Effect.never
})

/** Best effort at exit: delete paste buffers a call interrupted mid-paste left behind. */
const removePasteBuffers = (facts: StartupFacts) => {
  const tmux = (commands: ReadonlyArray<ReadonlyArray<string>>) =>
    execFileSync(facts.config.tmuxBin, buildArgv(facts.pin.flags, commands), { env: facts.pin.environment, encoding: "utf8", timeout: 1000, stdio: ["ignore", "pipe", "ignore"] })
  try {
    const ours = tmux([["list-buffers", "-F", "#{buffer_name}"]]).split("\n").filter((name) => name.startsWith(bufferPrefix))
    if (ours.length > 0) tmux(ours.map((name) => ["delete-buffer", "-b", name]))
  } catch {
    // No server, or it went away: nothing to delete.
  }
}

/** Runs the server process. */
export const main = (): void => {
  Effect.runFork(Effect.scoped(program).pipe(
    Effect.catchTag("StartupError", (error) =>
      Effect.sync(() => {
        process.stderr.write(`libtmux-mcp: ${error.message}\n`)
        process.exitCode = 1
      }))
  ))
}
