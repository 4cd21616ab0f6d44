/**
 * The stdio wire under lines a client should not send, through a raw child process writing to the
 * built server's stdin: a line over 10 MiB, text that is not JSON, JSON that is not JSON-RPC. Each
 * gets a JSON-RPC error answer and a stderr line, and the server keeps answering what follows.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { assert, describe, it } from "vitest"
import { harness } from "../support/harness.ts"
import { binPath, serverEnv } from "../support/mcp.ts"

const h = harness("stdio")

/** The server as a child, with its answers collected by id. */
const start = () => {
  const world = h.world()
  const child: ChildProcessWithoutNullStreams = spawn(process.execPath, [binPath], {
    env: serverEnv(world),
    cwd: world.dir
  })
  const answers: Array<{ id: unknown; result?: unknown; error?: { code: number; message: string } }> = []
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
  const answer = async (id: unknown) => {
    const deadline = Date.now() + 10_000
    while (Date.now() < deadline) {
      const found = answers.findIndex((candidate) => candidate.id === id)
      if (found !== -1) return answers.splice(found, 1)[0]!
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    throw new Error(`no answer with id ${JSON.stringify(id)} within 10 s; stderr: ${stderr}`)
  }
  const send = (line: string) => child.stdin.write(`${line}\n`)
  return { child, answer, send, stderr: () => stderr, exited }
}

describe("stdio lines", () => {
  it(
    "answers an oversized line, text that is not JSON and " +
      "JSON that is not JSON-RPC with errors, and keeps serving",
    async () => {
      const server = start()
      try {
        server.send(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "initialize",
            params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } }
          })
        )
        assert.property(await server.answer(1), "result")
        server.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }))
        // As the SDK client writes it: the id last.
        server.send(
          JSON.stringify({
            method: "tools/call",
            params: { name: "list_sessions", arguments: { padding: "a".repeat(11 * 1024 * 1024) } },
            jsonrpc: "2.0",
            id: 7
          })
        )
        const oversized = await server.answer(7)
        assert.strictEqual(oversized.error?.code, -32600)
        assert.include(oversized.error?.message, "at most 10485760 bytes")
        server.send("{not json")
        assert.strictEqual((await server.answer(null)).error?.code, -32700)
        server.send(JSON.stringify({ hello: "there", id: 9 }))
        assert.strictEqual((await server.answer(9)).error?.code, -32600)
        server.send(JSON.stringify({ jsonrpc: "2.0", id: 10, method: "ping" }))
        assert.deepStrictEqual((await server.answer(10)).result, {})
        server.send(
          JSON.stringify({
            jsonrpc: "2.0",
            id: 11,
            method: "tools/call",
            params: { name: "list_sessions", arguments: {} }
          })
        )
        assert.property(await server.answer(11), "result")
        assert.strictEqual(server.stderr().match(/refused a JSON-RPC line/gu)?.length, 3)
        assert.notInclude(server.stderr(), "aaaa")
        server.child.stdin.end()
        assert.strictEqual(await server.exited, 0)
      } finally {
        server.child.kill("SIGKILL")
      }
    }
  )
})
