/**
 * The built server under the SDK's real `Client` over stdio. The environment is always passed
 * explicitly (the SDK would otherwise pass only a few variables), with TMUX and TMUX_PANE unset
 * unless a test sets them on purpose.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js"
import type { CallToolResult, ClientCapabilities } from "@modelcontextprotocol/sdk/types.js"
import { type ChildProcess, spawn } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { TmuxWorld } from "./tmux.ts"

/** The bundled entry point the package's bin runs. */
export const binPath = fileURLToPath(new URL("../../dist/libtmux-mcp.js", import.meta.url))

/**
 * Names the run's one compile cache for the test servers (made by globalSetup.ts): each server but
 * the first then starts warm, as a user's servers share theirs. Without it (a script), the world's.
 */
export const serverCacheVariable = "LIBTMUX_TEST_SERVER_CACHE"

/** The transport a run's servers take when their tests name none (see `serverEnv`). */
export const transportVariable = "LIBTMUX_TEST_TRANSPORT"

/** The environment of a server process in a world, plus overrides (undefined removes a variable). */
export const serverEnv = (
  world: TmuxWorld,
  overrides: Readonly<Record<string, string | undefined>> = {}
): Record<string, string> => {
  const env: Record<string, string | undefined> = {
    PATH: process.env.PATH,
    // The world's folder (see makeWorld): what the server and the tmux server it starts write under
    // HOME stays in the world.
    HOME: world.dir,
    SHELL: "/bin/sh",
    TERM: "xterm-256color",
    TMUX_TMPDIR: world.dir,
    // The compile cache goes into a folder of the run's, which is removed, not into the user's home.
    XDG_CACHE_HOME: process.env[serverCacheVariable] ?? join(world.dir, "cache"),
    // The way every server of the run reaches tmux unless its test says (`LIBTMUX_TEST_TRANSPORT=spawn
    // npx vitest run test/e2e` runs the end-to-end suite over forked clients only); unset, the default.
    LIBTMUX_TRANSPORT: process.env[transportVariable] || undefined,
    ...overrides
  }
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined))
}

/** A connected client and what the server printed on stderr. */
export interface Connected {
  readonly client: Client
  readonly stderr: () => string
  close(): Promise<void>
  /** The server process's ID, while it runs. */
  readonly pid?: () => number | null
}

/** The capabilities of a client that shows MCP Apps (the pane view): the UI extension with the app page's type. */
export const uiCapabilities = {
  extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } }
} as const

/** Starts the built server and connects a client to it, declaring `capabilities` (none by default). */
export const connect = async (
  world: TmuxWorld,
  overrides: Readonly<Record<string, string | undefined>> = {},
  args: ReadonlyArray<string> = [],
  capabilities: ClientCapabilities = {}
): Promise<Connected> => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [binPath, ...args],
    env: serverEnv(world, overrides),
    cwd: world.dir,
    stderr: "pipe"
  })
  let stderr = ""
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8")
  })
  const client = new Client({ name: "libtmux-mcp-tests", version: "0.0.0" }, { capabilities })
  await client.connect(transport)
  return { client, stderr: () => stderr, close: () => client.close(), pid: () => transport.pid }
}

/**
 * Calls a tool and returns the raw result. `options.timeout` bounds a call whose latency is the
 * point: the request fails when no answer comes within it (a generous bound, not a measurement).
 */
export const call = async (
  connected: Connected,
  name: string,
  args: Record<string, unknown> = {},
  options?: RequestOptions
): Promise<CallToolResult> =>
  (await connected.client.callTool({ name, arguments: args }, undefined, options)) as CallToolResult

/** The text of a result's first content block. */
export const textOf = (result: CallToolResult): string => {
  const first = result.content[0]
  return first !== undefined && first.type === "text" ? first.text : ""
}

/** How a process ended, and what it printed. @category models */
export interface Exited {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/**
 * Runs a command until it exits; `stdin` is written to it, or it reads /dev/null (as a host's
 * background runner gives). `started` sees the child, for a test that ends it if it outlives the test.
 */
export const commandToExit = (
  command: string,
  args: ReadonlyArray<string>,
  options: {
    readonly env: Readonly<Record<string, string>>
    readonly cwd: string
    readonly stdin?: string
    readonly started?: (child: ChildProcess) => void
  }
): Promise<Exited> =>
  new Promise((resolve, reject) => {
    const child = spawn(command, [...args], {
      env: options.env,
      cwd: options.cwd,
      stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"]
    })
    options.started?.(child)
    let stdout = ""
    let stderr = ""
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")))
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
    if (options.stdin !== undefined) child.stdin?.end(options.stdin)
  })

/** Runs the server to completion with no client (for startup errors); resolves with its exit and output. */
export const runToExit = (
  world: TmuxWorld,
  overrides: Readonly<Record<string, string | undefined>> = {},
  args: ReadonlyArray<string> = [],
  stdin = ""
): Promise<Exited> =>
  commandToExit(process.execPath, [binPath, ...args], { env: serverEnv(world, overrides), cwd: world.dir, stdin })

/** A successful result's structured content; fails the test on an error result. */
export const structured = (result: CallToolResult): { readonly [key: string]: any } => {
  if (result.isError === true) throw new Error(`expected success, got: ${textOf(result)}`)
  return result.structuredContent as { readonly [key: string]: any }
}

/**
 * Asserts that a result leaves out `keys`: a field at its usual value (false, 0, an empty list, output
 * from the start) is absent (src/programs/usual.ts).
 */
export const absent = (result: unknown, ...keys: ReadonlyArray<string>): void => {
  for (const key of keys) {
    if (result !== null && typeof result === "object" && key in result) {
      throw new Error(`expected ${key} to be absent, got ${JSON.stringify((result as Record<string, unknown>)[key])}`)
    }
  }
}
