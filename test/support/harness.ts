/**
 * Per-test tmux worlds and server connections that are always cleaned up, whatever the test did.
 */
import { afterEach } from "vitest"
import { connect as connectServer, type Connected } from "./mcp.ts"
import { makeWorld, type TmuxWorld } from "./tmux.ts"

/** Registers cleanup for the calling test file and hands out worlds and connections. */
export const harness = (label: string) => {
  const worlds: Array<TmuxWorld> = []
  const clients: Array<Connected> = []
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.close()
    for (const world of worlds.splice(0)) world.dispose()
  })
  return {
    /** A fresh isolated tmux world. */
    world: (): TmuxWorld => {
      const world = makeWorld(label)
      worlds.push(world)
      return world
    },
    /** The built server in a world, connected through the SDK client. */
    connect: async (
      world: TmuxWorld,
      env: Readonly<Record<string, string | undefined>> = {},
      args: ReadonlyArray<string> = []
    ) => {
      const client = await connectServer(world, env, args)
      clients.push(client)
      return client
    },
    /** Closes a connection made some other way with the others, before the worlds go. */
    track: <C extends Connected>(client: C): C => {
      clients.push(client)
      return client
    }
  }
}
