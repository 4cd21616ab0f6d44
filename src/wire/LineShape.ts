/**
 * The shape of a JSON-RPC line as it streams in, read byte by byte and never parsed: how many values
 * it holds and how deep it nests, against bounds, so a line over them is dropped before JSON.parse,
 * the SDK's schemas or the registry spend time on it (their cost grows faster than the line). A
 * tools/call's `params.arguments` are held to the argument bounds every tool's schema fits
 * (domain/argumentBounds.ts), the whole line to looser ones. For a refused line it keeps the few
 * top-level facts its answer needs: the id, the method, and the tool a tools/call names. Not a
 * validator: a line within the bounds is judged by JSON.parse.
 */
import { argumentBounds, type BoundBroken } from "../domain/argumentBounds.ts"

/** The bounds of a whole line: its properties and array items (at any depth), and its nesting. */
export const lineBounds = { values: 4 * argumentBounds.values, depth: 64 } as const

const quote = 0x22
const backslash = 0x5c
const comma = 0x2c
const colon = 0x3a
const openObject = 0x7b
const closeObject = 0x7d
const openArray = 0x5b
const closeArray = 0x5d
const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09

/** The longest key, method, id or tool name kept: a longer one is none this server knows. */
const keptBytes = 256

const objectKind = 1
const arrayKind = 2

/** What a string being read is, when it is one the answer needs. */
type Role = "key" | "id" | "method" | "name" | undefined

/** Decodes a kept JSON string's content (escapes included), or undefined when it was cut or is not valid. */
const decodeString = (bytes: Uint8Array, length: number): string | undefined => {
  if (length > keptBytes) return undefined
  let plain = true
  for (let k = 0; k < length && plain; k++) plain = bytes[k]! >= 0x20 && bytes[k]! < 0x80 && bytes[k] !== backslash
  // Most keys and names are plain ASCII: no decoder needed.
  if (plain) return String.fromCharCode(...bytes.subarray(0, length))
  try {
    return JSON.parse(`"${Buffer.from(bytes.subarray(0, length)).toString("utf8")}"`) as string
  } catch {
    return undefined
  }
}

/** One line's scan; feed it the line's bytes in order, and reset it for the next line. @category constructors */
export class LineShape {
  /** The argument bound `params.arguments` broke first, if any. */
  argumentsBroken: BoundBroken | undefined
  /** The line bound the line broke, if it broke no argument bound first. */
  lineBroken: "values" | "depth" | undefined
  /** The top-level `id`, `method` and `params.name`, when they were strings (or a number id) of a kept length. */
  id: string | number | undefined
  method: string | undefined
  tool: string | undefined

  private depth = 0
  private values = 0
  private argumentValues = 0
  /** The kind of the container open at each depth, and its entries so far. */
  private readonly kinds = new Uint8Array(lineBounds.depth + 2)
  private readonly entries = new Uint32Array(lineBounds.depth + 2)
  private inString = false
  private escaped = false
  /** A container just opened: the next byte that is not a space says whether it is empty. */
  private justOpened = false
  /** At depth 1 or 2 in an object, the next string is a key. */
  private expectKey = false
  private role: Role
  private readonly kept = new Uint8Array(keptBytes)
  private keptLength = 0
  /** The key of the member being read at depth 1, and in `params` at depth 2. */
  private topKey: string | undefined
  private paramsKey: string | undefined
  /** The bytes of a number id being read. */
  private idToken = ""
  private malformed = false

  /** Makes the scan ready for the next line. */
  reset() {
    this.argumentsBroken = undefined
    this.lineBroken = undefined
    this.id = undefined
    this.method = undefined
    this.tool = undefined
    this.depth = 0
    this.values = 0
    this.argumentValues = 0
    this.kinds.fill(0)
    this.inString = false
    this.escaped = false
    this.justOpened = false
    this.expectKey = false
    this.role = undefined
    this.keptLength = 0
    this.topKey = undefined
    this.paramsKey = undefined
    this.idToken = ""
    this.malformed = false
  }

  /** Whether a bound broke. */
  get broken(): boolean {
    return this.argumentsBroken !== undefined || this.lineBroken !== undefined
  }

  /** Whether the line ended where a JSON value can end (every container and string closed). */
  get complete(): boolean {
    return !this.malformed && this.depth === 0 && !this.inString
  }

  /** How deep the container at `depth` is inside `params.arguments` (1 for the arguments object), or 0. */
  private argumentLevel(depth: number): number {
    return depth >= 3 && this.kinds[1] === objectKind && this.kinds[2] === objectKind && this.topKey === "params" &&
        this.paramsKey === "arguments"
      ? depth - 2
      : 0
  }

  /** A new entry (property or item) begins in the container open at the current depth. */
  private entry() {
    if (this.broken) return
    const depth = this.depth
    if (depth < this.entries.length) this.entries[depth]!++
    if (this.argumentLevel(depth) > 0) {
      if (++this.argumentValues > argumentBounds.values) this.argumentsBroken = "values"
      else if (this.kinds[depth] === arrayKind && this.entries[depth]! > argumentBounds.items) {
        this.argumentsBroken = "items"
      }
    }
    if (!this.broken && ++this.values > lineBounds.values) this.lineBroken = "values"
  }

  private open(kind: number) {
    const depth = ++this.depth
    if (depth < this.kinds.length) {
      this.kinds[depth] = kind
      this.entries[depth] = 0
    }
    if (depth === 1) this.topKey = undefined
    if (depth === 2) this.paramsKey = undefined
    this.justOpened = true
    this.expectKey = kind === objectKind && depth <= 2
    if (this.broken) return
    if (this.argumentLevel(depth) > argumentBounds.depth) this.argumentsBroken = "depth"
    else if (depth > lineBounds.depth) this.lineBroken = "depth"
  }

  /** The value of a top-level number id, read when its member ends. */
  private endIdToken() {
    if (this.idToken === "") return
    this.id = /^-?\d{1,15}$/u.test(this.idToken) ? Number(this.idToken) : undefined
    this.idToken = ""
  }

  private startString() {
    this.inString = true
    this.keptLength = 0
    const depth = this.depth
    const inParams = depth === 2 && this.kinds[1] === objectKind && this.kinds[2] === objectKind &&
      this.topKey === "params"
    if (this.expectKey) this.role = "key"
    else if (depth === 1 && this.kinds[1] === objectKind && this.topKey === "id") this.role = "id"
    else if (depth === 1 && this.kinds[1] === objectKind && this.topKey === "method") this.role = "method"
    else if (inParams && this.paramsKey === "name") this.role = "name"
    else this.role = undefined
    this.expectKey = false
  }

  private endString() {
    this.inString = false
    const role = this.role
    if (role === undefined) return
    this.role = undefined
    const text = decodeString(this.kept, this.keptLength)
    if (role === "key") {
      if (this.depth === 1) this.topKey = text
      else this.paramsKey = text
    } else if (role === "id") {
      this.id = text
    } else if (role === "method") {
      this.method = text
    } else {
      this.tool = text
    }
  }

  /** Reads the next bytes of the line. */
  feed(bytes: Uint8Array) {
    const length = bytes.length
    let i = 0
    while (i < length) {
      if (this.inString) {
        i = this.role === undefined ? this.skipString(bytes, i) : this.keepString(bytes, i)
        continue
      }
      const byte = bytes[i++]!
      if (isSpace(byte)) continue
      if (this.justOpened) {
        this.justOpened = false
        if (byte !== closeObject && byte !== closeArray) this.entry()
      }
      switch (byte) {
        case quote:
          this.startString()
          break
        case openObject:
          this.open(objectKind)
          break
        case openArray:
          this.open(arrayKind)
          break
        case closeObject:
        case closeArray:
          if (this.depth === 1) this.endIdToken()
          this.depth--
          if (this.depth < 0) this.malformed = true
          break
        case comma:
          if (this.depth === 1) this.endIdToken()
          this.entry()
          if (this.depth <= 2 && this.kinds[this.depth] === objectKind) this.expectKey = true
          if (this.depth === 1) this.topKey = undefined
          if (this.depth === 2) this.paramsKey = undefined
          break
        case colon:
          break
        default:
          // A number, true, false or null: only the top-level id's is kept.
          if (this.depth === 1 && this.kinds[1] === objectKind && this.topKey === "id" && this.idToken.length <= 16) {
            this.idToken += String.fromCharCode(byte)
          }
      }
    }
  }

  /**
   * Skips a string nothing needs, from `start`, to just after its closing quote or to the end of
   * the bytes; returns where to go on. The quote is found natively: a string costs little however long.
   */
  private skipString(bytes: Uint8Array, start: number): number {
    let i = start
    if (this.escaped) {
      this.escaped = false
      i++
    }
    while (i < bytes.length) {
      const end = bytes.indexOf(quote, i)
      // An odd run of backslashes right before a quote escapes it (a run from `i` on is not itself escaped).
      let run = 0
      for (let k = (end === -1 ? bytes.length : end) - 1; k >= i && bytes[k] === backslash; k--) run++
      if (end === -1) {
        this.escaped = run % 2 === 1
        return bytes.length
      }
      if (run % 2 === 0) {
        this.inString = false
        return end + 1
      }
      i = end + 1
    }
    return i
  }

  /** Reads a string whose text is kept (a key, the id, the method, the tool), from `start`; returns where to go on. */
  private keepString(bytes: Uint8Array, start: number): number {
    let i = start
    while (i < bytes.length) {
      const byte = bytes[i++]!
      if (!this.escaped && byte === quote) {
        this.endString()
        return i
      }
      if (this.keptLength < keptBytes) this.kept[this.keptLength] = byte
      this.keptLength++
      this.escaped = !this.escaped && byte === backslash
    }
    return i
  }
}
