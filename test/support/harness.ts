/**
 * Per-test tmux worlds and server connections that are always cleaned up, whatever the test did.
 */
import type { ClientCapabilities } from "@modelcontextprotocol/sdk/types.js"
import { AsyncLocalStorage } from "node:async_hooks"
import { afterAll, afterEach, aroundEach, beforeAll } from "vitest"
import { connectInProcess } from "./inProcess.ts"
import { connect as connectServer, type Connected } from "./mcp.ts"
import { until } from "./poll.ts"
import { makeWorld, serverListening, type TmuxWorld } from "./tmux.ts"

/** What one test made: its connections close, then its worlds go, then what it deferred runs. */
interface Made {
  readonly worlds: Array<TmuxWorld>
  readonly clients: Array<Connected>
  readonly deferred: Array<() => void>
}

const made = (): Made => ({ worlds: [], clients: [], deferred: [] })

const release = async (what: Made) => {
  for (const fn of what.deferred.splice(0)) fn()
  for (const client of what.clients.splice(0)) await client.close()
  for (const world of what.worlds.splice(0)) world.dispose()
}

/**
 * Registers cleanup for the calling test file and hands out worlds and connections. Each test's are
 * its own and go when it ends, so the tests of a `describe.concurrent` block can share the harness.
 * With `inProcess`, `connect` builds the server in the test's process (inProcess.ts) instead of
 * starting the bin: for files whose tests are about what the tools do, not about the process.
 */
export const harness = (label: string, { inProcess = false }: { readonly inProcess?: boolean } = {}) => {
  const ofTest = new AsyncLocalStorage<Made>()
  // What was made outside a test (none is, today) goes after the next test, as before.
  const outside = made()
  aroundEach(async (runTest) => {
    const mine = made()
    try {
      await ofTest.run(mine, runTest)
    } finally {
      await release(mine)
    }
  })
  afterEach(() => release(outside))
  const current = () => ofTest.getStore() ?? outside
  const worlds = { push: (world: TmuxWorld) => current().worlds.push(world) }
  const clients = { push: (client: Connected) => current().clients.push(client) }
  return {
    /** A fresh isolated tmux world. */
    world: (): TmuxWorld => {
      const world = makeWorld(label)
      worlds.push(world)
      return world
    },
    /** The server in a world, the bin or (`inProcess`) built in the test process, connected through the SDK client. */
    connect: async (
      world: TmuxWorld,
      env: Readonly<Record<string, string | undefined>> = {},
      args: ReadonlyArray<string> = []
    ) => {
      const client = await (inProcess ? connectInProcess : connectServer)(world, env, args)
      clients.push(client)
      return client
    },
    /** Closes a connection made some other way with the others, before the worlds go. */
    track: <C extends Connected>(client: C): C => {
      clients.push(client)
      return client
    },
    /** Runs `fn` when the calling test ends, before its connections and worlds go (a child process to end). */
    defer: (fn: () => void) => {
      current().deferred.push(fn)
    }
  }
}

/**
 * One server process for a whole test file, with a fresh tmux server for each test (`freshTmux`):
 * for tests about what tmux sees and keeps, which need no server process of their own. The file's
 * world and server go when its tests are done.
 */
export const sharedServer = (
  label: string,
  env: (world: TmuxWorld) => Readonly<Record<string, string>>,
  capabilities: ClientCapabilities = {}
) => {
  let world: TmuxWorld | undefined
  let connected: Connected | undefined
  beforeAll(async () => {
    world = makeWorld(label)
    connected = await connectServer(world, env(world), [], capabilities)
  })
  afterAll(async () => {
    await connected?.close()
    world?.dispose()
  })
  const started = () => {
    if (world === undefined || connected === undefined) throw new Error("the file's server is not started")
    return { world, c: connected }
  }
  return {
    /** The file's world and its connected server. */
    started,
    /** Kills the world's tmux server and waits until it is gone: the next call starts a fresh one. */
    freshTmux: async () => {
      const { world } = started()
      if (serverListening(world)) world.tryTmux("libtmux-mcp", "kill-server")
      await until("the previous test's tmux server to exit", () => serverListening(world), (listening) => !listening)
      return started()
    }
  }
}
