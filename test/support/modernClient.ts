/**
 * A client of the 2026-07-28 revision over stdio, as a host that speaks it: the built server as a
 * child process, each request carrying the per-request `_meta` envelope (with or without the tasks
 * extension), answers matched by id. `port` gives the same connection to the ext-tasks requester
 * (`withTasks`), which drives a task as a host does: polls, answers questions, cancels.
 */
import type { ConnectedMcpSessionPort, JsonRpcResponse } from "@modelcontextprotocol/ext-tasks/client"
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { binPath, serverEnv } from "./mcp.ts"
import type { TmuxWorld } from "./tmux.ts"

export const revision = "2026-07-28"
export const tasksExtension = "io.modelcontextprotocol/tasks"

/** The envelope of one request: the revision, the client, and its capabilities for this request. */
export const envelope = (tasks: boolean, version = revision) => ({
  "io.modelcontextprotocol/protocolVersion": version,
  "io.modelcontextprotocol/clientInfo": { name: "modern-tests", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": tasks ? { extensions: { [tasksExtension]: {} } } : {}
})

/** One JSON-RPC answer or server notification as it came. */
export type Message = { readonly id?: unknown; readonly method?: string; readonly result?: any; readonly error?: any }

/** The server in `world`, spoken to line by line. The caller closes it (`close`) or kills `child`. */
export const startModern = (world: TmuxWorld, env: Readonly<Record<string, string | undefined>> = {}) => {
  const started = performance.now()
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [binPath], {
    env: serverEnv(world, env),
    cwd: world.dir
  })
  const waiting = new Map<unknown, (message: Message) => void>()
  const notifications: Array<Message> = []
  let pending = ""
  let stderr = ""
  let next = 0
  child.stdout.on("data", (chunk: Buffer) => {
    pending += chunk.toString("utf8")
    const lines = pending.split("\n")
    pending = lines.pop()!
    for (const line of lines) {
      const message = JSON.parse(line) as Message
      const resolve = message.method === undefined ? waiting.get(message.id) : undefined
      if (resolve === undefined) notifications.push(message)
      else {
        waiting.delete(message.id)
        resolve(message)
      }
    }
  })
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")))
  const exited = new Promise<void>((resolve) => child.on("close", () => resolve()))
  /** Sends one message as written; its answer. */
  const raw = (message: Record<string, unknown>): Promise<Message> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(new Error(`no answer to ${JSON.stringify(message).slice(0, 200)}; stderr: ${stderr.slice(-2000)}`)),
        60_000
      )
      waiting.set(message.id, (answer) => {
        clearTimeout(timer)
        resolve(answer)
      })
      child.stdin.write(`${JSON.stringify(message)}\n`)
    })
  /** A request of the revision, its envelope declaring the tasks extension or not. */
  const request = (method: string, params: Record<string, unknown> = {}, tasks = true) =>
    raw({ jsonrpc: "2.0", id: `m${++next}`, method, params: { ...params, _meta: envelope(tasks) } })
  /** A tool call's result (the call must be answered with a result). */
  const callTool = async (name: string, args: Record<string, unknown>, tasks = true) => {
    const answer = await request("tools/call", { name, arguments: args }, tasks)
    if (answer.result === undefined) throw new Error(`${name}: ${JSON.stringify(answer.error)}`)
    return answer.result
  }
  /** The connection as the ext-tasks requester's port: it adds the envelope; withTasks adds the extension. */
  const port = (): ConnectedMcpSessionPort => ({
    endpointId: `libtmux-mcp-${child.pid}`,
    taskCapabilities: { generation: "v2", capabilities: {} },
    invalidated: false,
    dispatch: async (message) => {
      const { params, ...rest } = message as { params?: { _meta?: Record<string, unknown> } }
      const capabilities = params?._meta?.["io.modelcontextprotocol/clientCapabilities"]
      const answer = await raw({
        ...rest,
        jsonrpc: "2.0",
        id: `t${++next}`,
        params: {
          ...params,
          _meta: {
            ...params?._meta,
            ...envelope(false),
            ...(capabilities === undefined ? {} : { "io.modelcontextprotocol/clientCapabilities": capabilities })
          }
        }
      })
      return (answer.error === undefined
        ? { kind: "result", result: answer.result }
        : { kind: "error", error: answer.error }) as JsonRpcResponse
    },
    onServerRequest: () => () => undefined,
    onNotification: () => () => undefined,
    onInvalidated: () => () => undefined
  })
  const close = async () => {
    child.stdin.end()
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3000))])
    child.kill("SIGKILL")
  }
  return { child, raw, request, callTool, port, notifications, close, started, stderr: () => stderr }
}

/** A modern connection. */
export type Modern = ReturnType<typeof startModern>
