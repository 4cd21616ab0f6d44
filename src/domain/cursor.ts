/**
 * capture_since cursors: a versioned, signed, opaque token naming a position in one pane's output.
 * Signed with HMAC-SHA256 under a per-process secret, so a cursor that was altered, forged, or
 * issued by another server process is refused rather than trusted.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto"

/** What a cursor records. @category models */
export interface CursorState {
  readonly pane: string
  /** The socket path of the tmux server the pane lives on. */
  readonly socket: string
  /** The pane's process ID: a respawn invalidates the cursor. */
  readonly pid: number
  readonly historySize: number
  readonly height: number
  /** Absolute row (history size + cursor row) of the anchor. */
  readonly anchor: number
  readonly anchorHash: string
  /** Hashes of the rows below the anchor, to the bottom of the screen. */
  readonly belowHashes: ReadonlyArray<string>
  /** Hashes of up to three rows above the anchor: they change only when the content moved (a clear, a trim). */
  readonly aboveHashes: ReadonlyArray<string>
  readonly alternate: boolean
}

const prefix = "cs1."

/** A short content hash of one row. */
export const rowHash = (row: string): string => createHash("sha256").update(row).digest("base64url").slice(0, 12)

const sign = (secret: Buffer, payload: string): string =>
  createHmac("sha256", secret).update(payload).digest("base64url").slice(0, 22)

/** Encodes and signs a cursor. */
export const encodeCursor = (secret: Buffer, state: CursorState): string => {
  const payload = Buffer.from(JSON.stringify(state)).toString("base64url")
  return `${prefix}${payload}.${sign(secret, payload)}`
}

/** Verifies and decodes a cursor, or says why it cannot be used. */
export const decodeCursor = (secret: Buffer, token: string): CursorState | string => {
  if (!token.startsWith(prefix)) return "it is not a capture_since cursor of this version"
  const [payload = "", signature = ""] = token.slice(prefix.length).split(".")
  // Compared as bytes: a multi-byte character makes a signature of the right length in characters but not in bytes.
  const given = Buffer.from(signature, "utf8")
  const expected = Buffer.from(sign(secret, payload), "utf8")
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return "it was altered, or issued by another server process (cursors do not survive a restart)"
  }
  try {
    return JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as CursorState
  } catch {
    return "it does not decode"
  }
}
