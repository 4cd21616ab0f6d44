/**
 * The stdio transport: one JSON-RPC message per line on stdin, answers on stdout. Unlike the SDK's
 * own transport, which closes its read buffer for good (silently) on a line over 10 MiB and drops
 * malformed lines without an answer, this one answers every line it cannot use with a JSON-RPC error
 * (-32700 for text that is not JSON, -32600 for an oversized line, one over the shape bounds or one
 * that is not a JSON-RPC message), says so on stderr, and keeps serving the lines that follow. The
 * shape is scanned as the line arrives (LineShape.ts), so a line over a bound is never parsed; a
 * tools/call whose arguments broke a bound goes on without them, refused by the registry as that
 * tool's call. The MCP lifecycle is enforced here too (RequestGate.ts).
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import {
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type JSONRPCRequest,
  type MessageExtraInfo,
  type RequestInfo
} from "@modelcontextprotocol/sdk/types.js"
import process from "node:process"
import type { Readable, Writable } from "node:stream"
import { type BoundBroken, boundProblem, UnreadArguments } from "../domain/argumentBounds.ts"
import { BoundedLines } from "../platform/boundedLines.ts"
import { lineBounds, LineShape } from "./LineShape.ts"
import { type Era, requestGate } from "./RequestGate.ts"
import { metaKeys, type ServerInfo, stampResult } from "./Revision.ts"

/** The longest line read, in bytes (the SDK's own limit). */
export const maxLineBytes = 10 * 1024 * 1024

type Id = string | number | null

/**
 * The request information a tools/call gets when its arguments broke the argument bounds: the
 * request is passed on without them (they were never parsed), and the call is refused by the
 * registry, audited like any refused input. Only this transport makes one; a client cannot.
 * @category models
 */
export class UnreadCall implements RequestInfo {
  readonly headers = {}
  readonly arguments: UnreadArguments
  constructor(broken: BoundBroken) {
    this.arguments = new UnreadArguments(broken)
  }
}

/** Who answers before the server's handlers are installed. */
const unnamed = { name: "libtmux-mcp", title: "libtmux-mcp", version: "" }

/** How a request the 2026-07-28 revision adds is answered: a result, or a JSON-RPC error. @category models */
export type LocalAnswer =
  | { readonly result: Readonly<Record<string, unknown>> }
  | { readonly error: { readonly code: number; readonly message: string; readonly data?: unknown } }

/** This server's own handlers of the requests the 2026-07-28 revision adds (Revision.ts). @category models */
export interface LocalMethods {
  readonly server: ServerInfo
  /** The `server/discover` result. */
  readonly discovery: Readonly<Record<string, unknown>>
  /** Answers `tasks/*`. */
  readonly answer: (request: JSONRPCRequest) => Promise<LocalAnswer>
}

/** A line transport over a pair of streams (stdin and stdout by default). @category constructors */
export class LineTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void
  /** The shape of the line being read, scanned as it arrives. */
  private readonly shape = new LineShape()
  /** The lines read; one refused (too long, or over a bound) is discarded, not kept. */
  private readonly lines: BoundedLines
  private local: LocalMethods | undefined
  private readonly gate = requestGate(() => this.local?.server ?? unnamed)

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
    this.lines = new BoundedLines(limit, {
      // Scanned to the end even when refused: the id, method and tool can come after what broke a bound.
      piece: (piece) => (this.shape.feed(piece), this.shape.broken),
      line: (text) => this.endLine(text)
    })
  }

  private readonly onData = (chunk: Buffer) => this.lines.feed(chunk)

  private readonly onError = (error: Error) => this.onerror?.(error)

  /** A line ended: refused (its shape says what it was), blank, or parsed and passed on. */
  private endLine(line: string | undefined) {
    const { shape } = this
    if (line === undefined) this.refused(shape)
    shape.reset()
    if (line === undefined || line.trim().length === 0) return
    let json: unknown
    try {
      json = JSON.parse(line)
    } catch {
      this.refuse(null, -32700, "Parse error: the line is not valid JSON")
      return
    }
    this.pass(json)
  }

  /** Checks a parsed line is a JSON-RPC message the lifecycle admits, and passes it on. */
  private pass(json: unknown, extra?: MessageExtraInfo) {
    const parsed = JSONRPCMessageSchema.safeParse(json)
    if (!parsed.success) {
      const id = typeof json === "object" && json !== null && "id" in json &&
          (typeof json.id === "string" || typeof json.id === "number")
        ? json.id
        : null
      this.refuse(id, -32600, "Invalid Request: the line is JSON but not a JSON-RPC 2.0 message")
      return
    }
    const message = parsed.data
    const admission = this.gate.admit(message)
    if (admission === "taken") return
    if (admission === "local") return void this.answerLocally(message as JSONRPCRequest)
    if (admission !== undefined) {
      this.refuse("id" in message ? message.id ?? null : null, admission.code, admission.message, admission.data)
      return
    }
    this.onmessage?.(message, extra)
  }

  /** The era the connection's first request chose; `undefined` before it. */
  era(): Era | undefined {
    return this.gate.era()
  }

  /** Installs this server's handlers of the 2026-07-28 revision's own requests. */
  serveLocally(local: LocalMethods) {
    this.local = local
  }

  /** A request of the 2026-07-28 revision this server answers itself, stamped as every result of it. */
  private async answerLocally(request: JSONRPCRequest) {
    // A listen stream stays open until the client cancels it: acknowledged with the notifications this
    // server agrees to send on it, none (its tool list and resources do not change while it runs).
    if (request.method === "subscriptions/listen") {
      return void this.write({
        jsonrpc: "2.0",
        method: "notifications/subscriptions/acknowledged",
        params: { _meta: { [metaKeys.subscription]: request.id }, notifications: {} }
      })
    }
    const local = this.local
    const answer = local === undefined
      ? { error: { code: -32603, message: "Internal error: the server is not serving yet" } }
      : request.method === "server/discover"
      ? { result: local.discovery }
      : await local.answer(request).catch((): LocalAnswer => ({
        error: { code: -32603, message: `Internal error in ${request.method}; see the server's stderr` }
      }))
    const server = this.local?.server
    const line = "error" in answer
      ? { jsonrpc: "2.0", id: request.id, error: answer.error }
      : {
        jsonrpc: "2.0",
        id: request.id,
        result: server === undefined ? answer.result : stampResult(request.method, answer.result, server)
      }
    await this.write(line)
  }

  /**
   * A line that was not kept: a tools/call whose arguments broke an argument bound goes on without
   * them, to be refused and audited as that tool's call; any other is answered here.
   */
  private refused(shape: LineShape) {
    const id = shape.id ?? null
    if (
      shape.argumentsBroken !== undefined && shape.complete && shape.method === "tools/call" && id !== null &&
      shape.tool !== undefined
    ) {
      this.pass(
        { jsonrpc: "2.0", id, method: "tools/call", params: { name: shape.tool } },
        { requestInfo: new UnreadCall(shape.argumentsBroken) }
      )
      return
    }
    const reason = shape.argumentsBroken !== undefined
      ? `${boundProblem(shape.argumentsBroken).replace("refused before decoding: the", "the params'")}; this line`
      : shape.lineBroken === "values"
      ? `a message may hold at most ${lineBounds.values} properties and array items; this line held more and`
      : shape.lineBroken === "depth"
      ? `a message may nest at most ${lineBounds.depth} levels; this line nested deeper and`
      : `a message may be at most ${this.limit} bytes; this line was longer and`
    this.refuse(id, -32600, `Invalid Request: ${reason} was discarded unread`)
  }

  /** Answers a line that cannot be used, and notes it on stderr (without its content). */
  private refuse(id: Id, code: number, message: string, data?: unknown) {
    this.warn(`libtmux-mcp: refused a JSON-RPC line (id ${JSON.stringify(id)}): ${message}`)
    const error = data === undefined ? { code, message } : { code, message, data }
    this.output.write(`${JSON.stringify({ jsonrpc: "2.0", id, error })}\n`)
  }

  async start() {
    this.input.on("data", this.onData)
    this.input.on("error", this.onError)
  }

  async close() {
    this.input.off("data", this.onData)
    this.input.off("error", this.onError)
    this.lines.reset()
    this.shape.reset()
    this.onclose?.()
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.write(this.gate.answer(message))
  }

  /** Writes one message as a line, resolving once the stream took it. */
  private write(message: unknown): Promise<void> {
    return new Promise((resolve) => {
      if (this.output.write(`${JSON.stringify(message)}\n`)) resolve()
      else this.output.once("drain", resolve)
    })
  }
}
