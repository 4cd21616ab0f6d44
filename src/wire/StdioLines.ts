/**
 * The stdio transport: one JSON-RPC message per line on stdin, answers on stdout. Unlike the SDK's
 * own transport, which closes its read buffer for good (silently) on a line over 10 MiB and drops
 * malformed lines without an answer, this one answers every line it cannot use with a JSON-RPC error
 * (-32700 for text that is not JSON, -32600 for an oversized line or one that is not a JSON-RPC
 * message), says so on stderr, and keeps serving the lines that follow. The MCP lifecycle is
 * enforced here too (RequestGate.ts).
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"
import process from "node:process"
import type { Readable, Writable } from "node:stream"
import { requestGate } from "./RequestGate.ts"

/** The longest line read, in bytes (the SDK's own limit). */
export const maxLineBytes = 10 * 1024 * 1024

/** Bytes of an oversized line kept from its end, where the SDK client writes the request id. */
const tailBytes = 512

type Id = string | number | null

/** The id of a request whose line ends with `"id":<number or string>}`, as JSON.stringify writes it last. */
const trailingId = (tail: string): Id => {
  const found = /"id"\s*:\s*(-?\d{1,15}|"(?:[^"\\]|\\.){0,200}")\s*\}\s*$/u.exec(tail)
  if (found === null) return null
  try {
    return JSON.parse(found[1]!) as string | number
  } catch {
    return null
  }
}

/** A line transport over a pair of streams (stdin and stdout by default). @category constructors */
export class LineTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private chunks: Array<Buffer> = []
  private size = 0
  /** The end of the line being skipped, while it is over the limit; undefined otherwise. */
  private oversized: Buffer | undefined
  private readonly gate = requestGate()

  private readonly input: Readable
  private readonly output: Writable
  private readonly limit: number
  /** Where a refused line is noted. */
  private readonly warn: (text: string) => void

  constructor(
    input: Readable = process.stdin,
    output: Writable = process.stdout,
    limit = maxLineBytes,
    warn: (text: string) => void = (text) => void process.stderr.write(`${text}\n`)
  ) {
    this.input = input
    this.output = output
    this.limit = limit
    this.warn = warn
  }

  private readonly onData = (chunk: Buffer) => {
    let start = 0
    while (start <= chunk.length) {
      const newline = chunk.indexOf(10, start)
      this.take(chunk.subarray(start, newline === -1 ? chunk.length : newline))
      if (newline === -1) return
      this.endLine()
      start = newline + 1
    }
  }

  private readonly onError = (error: Error) => this.onerror?.(error)

  private take(piece: Buffer) {
    if (piece.length === 0) return
    this.size += piece.length
    if (this.oversized !== undefined) {
      this.oversized = Buffer.from(Buffer.concat([this.oversized, piece]).subarray(-tailBytes))
      return
    }
    this.chunks.push(piece)
    if (this.size > this.limit) {
      // Past the limit: keep only the end of the line (for its id) until its newline.
      this.oversized = Buffer.from(Buffer.concat(this.chunks).subarray(-tailBytes))
      this.chunks = []
    }
  }

  private endLine() {
    const oversized = this.oversized
    const line = oversized === undefined ? Buffer.concat(this.chunks).toString("utf8") : ""
    this.chunks = []
    this.size = 0
    this.oversized = undefined
    if (oversized !== undefined) {
      const id = trailingId(oversized.toString("utf8"))
      this.refuse(
        id,
        -32600,
        `Invalid Request: a message may be at most ${this.limit} bytes; this line was longer and was discarded`
      )
      return
    }
    if (line.trim().length === 0) return
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch {
      this.refuse(null, -32700, "Parse error: the line is not valid JSON")
      return
    }
    const parsed = JSONRPCMessageSchema.safeParse(json)
    if (!parsed.success) {
      const id = typeof json === "object" && json !== null && "id" in json &&
          (typeof json.id === "string" || typeof json.id === "number")
        ? json.id
        : null
      this.refuse(id, -32600, "Invalid Request: the line is JSON but not a JSON-RPC 2.0 message")
      return
    }
    const refusal = this.gate.admit(parsed.data)
    if (refusal !== undefined) {
      this.refuse("id" in parsed.data ? parsed.data.id ?? null : null, refusal.code, refusal.message)
      return
    }
    this.onmessage?.(parsed.data)
  }

  /** Answers a line that cannot be used, and notes it on stderr (without its content). */
  private refuse(id: Id, code: number, message: string) {
    this.warn(`libtmux-mcp: refused a JSON-RPC line (id ${JSON.stringify(id)}): ${message}`)
    this.output.write(`${JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } })}\n`)
  }

  async start() {
    this.input.on("data", this.onData)
    this.input.on("error", this.onError)
  }

  async close() {
    this.input.off("data", this.onData)
    this.input.off("error", this.onError)
    this.chunks = []
    this.oversized = undefined
    this.onclose?.()
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(this.gate.answer(message))}\n`)) resolve()
      else this.output.once("drain", resolve)
    })
  }
}
