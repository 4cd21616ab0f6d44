/**
 * The built server started from inside a pane of a test world, as an MCP client in a tmux pane
 * starts it: a child of the pane's process, with an environment that has no TMUX or TMUX_PANE.
 * The test talks to it through paneRelay.ts over a Unix socket.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js"
import { randomUUID } from "node:crypto"
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { connect as connectSocket, type Socket } from "node:net"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { binPath, type Connected, serverEnv } from "./mcp.ts"
import { until } from "./poll.ts"
import type { TmuxWorld } from "./tmux.ts"

const relayPath = fileURLToPath(new URL("./paneRelay.ts", import.meta.url))

/** JSON-RPC over a Unix socket, framed as the stdio transport frames it. */
class SocketTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private readonly buffer = new ReadBuffer()
  private socket: Socket | undefined
  private readonly path: string
  constructor(path: string) {
    this.path = path
  }
  start(): Promise<void> {
    return new Promise((resolve, reject) => {
      const socket = connectSocket(this.path, () => resolve())
      socket.on("error", (error) => {
        reject(error)
        this.onerror?.(error)
      })
      socket.on("data", (chunk: Buffer) => {
        this.buffer.append(chunk)
        for (let message = this.buffer.readMessage(); message !== null; message = this.buffer.readMessage()) {
          this.onmessage?.(message)
        }
      })
      socket.on("close", () => this.onclose?.())
      this.socket = socket
    })
  }
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => this.socket!.write(serializeMessage(message), () => resolve()))
  }
  close(): Promise<void> {
    this.socket?.end()
    return Promise.resolve()
  }
}

/** A server running in a pane, and what reached that pane's terminal. */
export interface InPane extends Connected {
  /** The pane the server runs in. */
  readonly pane: string
  /** Everything typed into that pane's terminal so far (its program reads it line by line). */
  readonly typed: () => string
}

/**
 * Starts the server in a new session `session` on the world's `libtmux-mcp` socket, pinned to that
 * socket by path, and connects to it. `how` is paneRelay.ts's start mode.
 */
export const startInPane = async (
  world: TmuxWorld,
  session: string,
  overrides: Readonly<Record<string, string | undefined>> = {},
  how: "attached" | "detached" | "orphan" = "attached"
): Promise<InPane> => {
  const file = (name: string) => join(world.dir, `${session}-${name}`)
  const env = serverEnv(world, {
    LIBTMUX_SOCKET: `path:${world.socketPath("libtmux-mcp")}`,
    ...overrides,
    TMUX: undefined,
    TMUX_PANE: undefined
  })
  writeFileSync(file("env.json"), JSON.stringify(env))
  const argv = [
    process.execPath,
    relayPath,
    file("relay.sock"),
    file("env.json"),
    binPath,
    file("stderr"),
    file("typed"),
    how
  ]
  const pane = world.tmux(
    "libtmux-mcp",
    "new-session",
    "-d",
    "-s",
    session,
    "-P",
    "-F",
    "#{pane_id}",
    argv.map((arg) => `'${arg}'`).join(" ")
  ).trim()
  await until(`the relay in ${pane} to listen`, () => existsSync(file("relay.sock.ready")))
  const client = new Client({ name: "libtmux-mcp-tests", version: "0.0.0" })
  await client.connect(new SocketTransport(file("relay.sock")))
  const read = (name: string) => (existsSync(file(name)) ? readFileSync(file(name), "utf8") : "")
  return { client, pane, stderr: () => read("stderr"), typed: () => read("typed"), close: () => client.close() }
}

/**
 * What reached the server's pane before now, apart from these lines of our own: one is typed there
 * and waited for, and tmux delivers a pane's input in order, so whatever was typed earlier has arrived too.
 */
export const typedBefore = async (world: TmuxWorld, c: InPane): Promise<string> => {
  const line = `barrier-${randomUUID()}`
  world.tmux("libtmux-mcp", "send-keys", "-t", c.pane, "-l", line)
  world.tmux("libtmux-mcp", "send-keys", "-t", c.pane, "Enter")
  const typed = await until(`${line} to reach pane ${c.pane}`, c.typed, (text) => text.includes(line))
  // Lines typed by earlier calls of this function are not what a test asks about.
  return typed.slice(0, typed.indexOf(line)).replace(/^barrier-[-0-9a-f]{36}\n/gmu, "")
}
