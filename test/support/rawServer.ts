/**
 * The built server as a child process written to line by line, for lines the SDK client would not
 * write (or could not serialize): answers are collected by id, stderr is kept.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { binPath, serverEnv } from "./mcp.ts"
import { until } from "./poll.ts"
import type { TmuxWorld } from "./tmux.ts"

/** One JSON-RPC answer as it came. */
export interface Answer {
  readonly id: unknown
  readonly result?: any
  readonly error?: { readonly code: number; readonly message: string }
}

/** Starts the server in a world; `send` writes one line. The caller kills `child` when done. */
export const startRaw = (world: TmuxWorld, overrides: Readonly<Record<string, string | undefined>> = {}) => {
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [binPath], {
    env: serverEnv(world, overrides),
    cwd: world.dir
  })
  const answers: Array<Answer> = []
  let pending = ""
  let stderr = ""
  child.stdout.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8")
    const lines = pending.split("\n")
    pending = lines.pop()!
    for (const line of lines) answers.push(JSON.parse(line))
  })
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
  const answer = async (id: unknown): Promise<Answer> => {
    const found = await until(
      `an answer with id ${JSON.stringify(id)}`,
      () => answers.findIndex((candidate) => candidate.id === id),
      (index) => index !== -1
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}; stderr: ${stderr}`)
    })
    return answers.splice(found, 1)[0]!
  }
  const send = (line: string) => child.stdin.write(`${line}\n`)
  /** Initializes the connection, as a client does first. */
  const initialize = async () => {
    send(JSON.stringify({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
    }))
    await answer("init")
    send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
  }
  return { child, answer, send, initialize, stderr: () => stderr, exited }
}
