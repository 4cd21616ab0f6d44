/**
 * The entry point: decide the configuration, then serve MCP on stdio (serve.ts), and exit 0 at
 * once on stdin end, SIGINT or SIGTERM: closing the scope interrupts the calls in flight and waits
 * for them, then the services' finalizers run; the tmux server keeps running. stdout carries JSON-RPC only;
 * everything else goes to stderr.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import { realpathSync } from "node:fs"
import { clientConfigNotes, renderClientConfig } from "./domain/clientConfig.ts"
import { helpText } from "./domain/config.ts"
import { reportFailure } from "./failure.ts"
import { recordEntry } from "./platform/entry.ts"
import { packaged } from "./platform/packaged.ts"
import { nodeProblem } from "./startup/NodeCheck.ts"
import { startup } from "./startup/Startup.ts"
import { version } from "./version.ts"

/** Whether the server answers on stdin yet: a failure before is a failed start. */
let serving = false

/**
 * The serving half (the protocol, the services, the tools), loaded once: main starts loading it
 * as soon as startup's tmux probes are under way, after the socket's checks.
 */
let serverModule: Promise<typeof import("./serve.ts")> | undefined
const loadServer = () => {
  // The SDK checks each message with zod, whose default compiles a parser per schema with
  // new Function at its first use (code the compile cache never keeps): about 10 ms of the first
  // answers. Its interpreted parse gives the same results. zod reads this shared setting object.
  const shared = globalThis as typeof globalThis & { __zod_globalConfig?: Record<string, unknown> }
  ;(shared.__zod_globalConfig ??= {}).jitless = true
  return (serverModule ??= import("./serve.ts"))
}

const program = Effect.gen(function*() {
  const decided = yield* startup(process.env, process.argv.slice(2), process.getuid?.() ?? 0)
  if (decided.kind === "help") return void process.stdout.write(`${helpText(version)}\n`)
  if (decided.kind === "version") return void process.stdout.write(`libtmux-mcp ${version}\n`)
  if (decided.kind === "print-config") {
    // The single executable is its own entry: no Node and no bin file to name.
    const bin = packaged ? undefined : realpathSync(process.argv[1] ?? "")
    const problem = decided.node === undefined
      ? undefined
      : packaged
      ? "--node names the Node that runs the package's bin; the single executable runs itself: leave out --node"
      : nodeProblem(decided.node)
    if (problem !== undefined) {
      process.stderr.write(`libtmux-mcp: ${problem}\n`)
      return void (process.exitCode = 1)
    }
    const node = decided.node ?? process.execPath
    for (const note of clientConfigNotes(decided, node, packaged)) process.stderr.write(`${note}\n`)
    return void process.stdout.write(`${renderClientConfig(decided, node, bin)}\n`)
  }
  if (decided.kind === "wait") {
    // Loads only the watcher: no MCP server, no lease, no tmux server started.
    const { waitForRun } = yield* Effect.promise(() => import("./wait.ts"))
    const code = yield* waitForRun(decided.target)
    // Its line is written (a pipe or a file, synchronously), its tmux clients released or stopped.
    return void setImmediate(() => process.exit(code))
  }
  recordEntry(process.argv)
  const { serve } = yield* Effect.promise(loadServer)
  return yield* serve(decided.facts, () => {
    serving = true
  })
})

/** Runs the server process. */
export const main = (): void => {
  // The fiber runs at once up to its first wait: startup's tmux probes, spawned after the socket's
  // checks. Loading the serving half then overlaps them; a run that already ended (help, version,
  // a refusal) loads nothing more.
  const fiber = Effect.runFork(
    Effect.scoped(program).pipe(
      // No tracer can be installed in this process: spans would be made for no one. A host that
      // embeds the layer (index.ts) keeps them.
      Effect.withTracerEnabled(false),
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
  // `wait` never serves: it loads only its watcher.
  if (fiber.pollUnsafe() === undefined && process.argv[2] !== "wait") void loadServer().catch(() => undefined)
}
