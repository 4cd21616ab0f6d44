/**
 * Lines of a byte stream (newline-delimited JSON-RPC, each way of the server's stdio and of a hub's
 * link to a host), each kept as its chunks and joined once: a reader that copied everything held so
 * far at every chunk spent seconds on one large line. A line over `limit`, or one `piece` refuses as
 * it arrives, is read to its end and discarded, never kept.
 */

/** What a reader of lines does with them. @category models */
export interface LineHooks {
  /** Sees every piece of the line as it arrives, kept or not; true refuses the line (nothing more kept). */
  readonly piece?: (piece: Buffer) => boolean
  /** A line ended: its text, or `undefined` when it was refused. */
  readonly line: (text: string | undefined) => void
}

/** A newline splitter with a bound on the line it keeps. @category constructors */
export class BoundedLines {
  private chunks: Array<Buffer> = []
  private size = 0
  /** Set once the line being read is refused: nothing more of it is kept. */
  private discarding = false
  private readonly limit: number
  private readonly hooks: LineHooks

  constructor(limit: number, hooks: LineHooks) {
    this.limit = limit
    this.hooks = hooks
  }

  /** Takes a chunk of the stream; each line it ends goes to `hooks.line`. */
  feed(chunk: Buffer): void {
    let start = 0
    while (start <= chunk.length) {
      const newline = chunk.indexOf(10, start)
      this.take(chunk.subarray(start, newline === -1 ? chunk.length : newline))
      if (newline === -1) return
      this.end()
      start = newline + 1
    }
  }

  /** Forgets the line being read (the stream closed). */
  reset(): void {
    this.chunks = []
    this.size = 0
    this.discarding = false
  }

  private take(piece: Buffer) {
    if (piece.length === 0) return
    this.size += piece.length
    const refused = this.hooks.piece?.(piece) === true
    if (this.discarding) return
    if (this.size > this.limit || refused) {
      this.discarding = true
      this.chunks = []
      return
    }
    this.chunks.push(piece)
  }

  private end() {
    const { discarding, size } = this
    const text = discarding ? undefined : Buffer.concat(this.chunks, size).toString("utf8")
    this.reset()
    this.hooks.line(text)
  }
}
