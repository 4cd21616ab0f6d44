/**
 * The hub's stdio transport to one host: `ssh ... <the server there>` as a child process, one
 * JSON-RPC message per line each way. Unlike the SDK's StdioClientTransport, whose read buffer copies
 * everything held so far at every chunk (a 6 MB answer held the hub's event loop for seconds), a line
 * is kept as its chunks and joined once, and a line over `maxHostMessageBytes` is not kept at all: it
 * is read to its end and discarded, and the call it answers fails with `answerRefusedCode`, which says
 * why, while the session goes on serving. A line that is no JSON-RPC message fails its call the same
 * way. A refused line is never parsed: its id is read from its last bytes, where the SDK's server
 * writes an answer's (`{"result":...,"jsonrpc":"2.0","id":7}`), and whether it is the host's own
 * request or notification from its first (`{"method":...`); a refused answer whose id is not found
 * there ends the session, so no call waits for an answer that will not come.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { type JSONRPCMessage, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"
import { type ChildProcess, spawn } from "node:child_process"
import { PassThrough } from "node:stream"
import { BoundedLines } from "../platform/boundedLines.ts"

/**
 * The longest message the hub reads from a host, in bytes. The host is this same server, whose
 * answers holding terminal text stay within 500,000 characters as JSON (domain/bounds.ts): as a
 * message that text comes twice (the result, and its JSON in the text content, escaped again), and
 * a character takes at most three bytes, so 3 MB at most; 4 MiB leaves room for the rest.
 */
export const maxHostMessageBytes = 4 * 1024 * 1024

/** The JSON-RPC error code of an answer the hub refused unread (in the range for implementation errors). */
export const answerRefusedCode = -32090

/** How many of a line's first and last bytes are kept, to tell what a refused line was. */
const endBytes = 256

/** An answer's id at the end of a line as the SDK's server writes it: a number or a plain string. */
const idAtEnd = /"id"\s*:\s*(-?\d{1,15}|"[^"\\]{0,200}")\s*\}\s*$/u

/** A message the host sends on its own (a request or a notification) starts with its method. */
const methodAtStart = /^\s*\{\s*"method"\s*:/u

/** How long close waits for the process to exit after ending its input, then after SIGTERM (as the SDK's). */
const exitWaitMs = 2000

/** A line transport to a command's stdin and stdout. @category constructors */
export class HostTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  /** The command's stderr, there before it starts, so that nothing it writes early is missed. */
  readonly stderr = new PassThrough()

  private process: ChildProcess | undefined
  /** The lines read; one over the bound is discarded, not kept. */
  private readonly lines: BoundedLines
  /** The line's first bytes (up to `endBytes`), and its last ones. */
  private head: Buffer = Buffer.alloc(0)
  private tail: Buffer = Buffer.alloc(0)

  private readonly command: string
  private readonly args: ReadonlyArray<string>
  private readonly env: Readonly<Record<string, string>>
  private readonly limit: number

  constructor(
    params: { readonly command: string; readonly args: ReadonlyArray<string>; readonly env: Record<string, string> },
    limit: number = maxHostMessageBytes
  ) {
    this.command = params.command
    this.args = params.args
    this.env = params.env
    this.limit = limit
    this.lines = new BoundedLines(limit, { piece: this.seeEnds, line: (text) => this.endLine(text) })
  }

  start(): Promise<void> {
    if (this.process !== undefined) return Promise.reject(new Error("the host transport was started already"))
    return new Promise((resolve, reject) => {
      const child = spawn(this.command, [...this.args], { env: this.env, stdio: ["pipe", "pipe", "pipe"] })
      this.process = child
      child.on("error", (error) => {
        reject(error)
        this.onerror?.(error)
      })
      child.on("spawn", () => resolve())
      child.on("close", () => {
        this.process = undefined
        this.onclose?.()
      })
      child.stdin.on("error", (error) => this.onerror?.(error))
      child.stdout.on("data", this.onData)
      child.stdout.on("error", (error) => this.onerror?.(error))
      child.stderr.pipe(this.stderr)
    })
  }

  private readonly onData = (chunk: Buffer) => this.lines.feed(chunk)

  /** Keeps a line's first bytes (up to `endBytes`) and its last ones, kept or not: what tells a refused line. */
  private readonly seeEnds = (piece: Buffer) => {
    if (this.head.length < endBytes) this.head = Buffer.concat([this.head, piece.subarray(0, endBytes)])
    this.tail = piece.length >= endBytes
      ? piece.subarray(piece.length - endBytes)
      : Buffer.concat([this.tail, piece]).subarray(-endBytes)
    return false
  }

  /** A line ended: refused (over the bound) or not JSON-RPC, said to its call; else passed on. */
  private endLine(line: string | undefined) {
    const ends = { head: this.head.toString("utf8"), tail: this.tail.toString("utf8") }
    this.head = Buffer.alloc(0)
    this.tail = Buffer.alloc(0)
    if (line === undefined) {
      this.refuse(
        ends,
        `it was over ${this.limit} bytes (${this.limit / 1024 / 1024} MiB, the most the hub reads of one message ` +
          "from a host) and was discarded unread"
      )
    } else if (line.trim().length > 0) {
      const parsed = parse(line)
      if (parsed === undefined) this.refuse(ends, "it is not a JSON-RPC message")
      else this.onmessage?.(parsed)
    }
  }

  /**
   * A line not passed on: an answer fails its call with the reason; a notification is dropped; a
   * request from the host is answered with the reason; a line whose id is not known ends the session.
   */
  private refuse(ends: { readonly head: string; readonly tail: string }, reason: string) {
    const found = idAtEnd.exec(ends.tail)?.[1]
    const id = found === undefined ? undefined : JSON.parse(found) as string | number
    const fromHost = methodAtStart.test(ends.head)
    if (fromHost && id === undefined) return
    if (fromHost && id !== undefined) {
      this.send({ jsonrpc: "2.0", id, error: { code: -32600, message: `the hub refused this message: ${reason}` } })
        .catch(() => undefined)
      return
    }
    if (id === undefined) {
      this.onerror?.(new Error(`a message from the host was refused (${reason}), and its id is not known`))
      void this.close()
      return
    }
    this.onmessage?.({ jsonrpc: "2.0", id, error: { code: answerRefusedCode, message: reason } })
  }

  async close(): Promise<void> {
    const child = this.process
    this.lines.reset()
    if (child === undefined) return
    this.process = undefined
    const closed = new Promise<void>((resolve) => child.once("close", () => resolve()))
    const exited = () => Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, exitWaitMs).unref())])
    try {
      child.stdin?.end()
    } catch {
      // Closed already.
    }
    await exited()
    for (const signal of ["SIGTERM", "SIGKILL"] as const) {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill(signal)
      if (signal === "SIGTERM") await exited()
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const input = this.process?.stdin
      if (input === undefined || input === null) {
        reject(new Error("Not connected"))
        return
      }
      if (input.write(`${JSON.stringify(message)}\n`)) resolve()
      else input.once("drain", () => resolve())
    })
  }
}

/** The JSON-RPC message a line holds, or undefined. */
const parse = (line: string): JSONRPCMessage | undefined => {
  try {
    const parsed = JSONRPCMessageSchema.safeParse(JSON.parse(line))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}
