/**
 * A random secret that lives as long as this server process: it signs capture_since cursors (so a
 * forged cursor, or one from another process, is refused) and will key audit digests.
 */
import * as Context from "effect/Context"
import { randomBytes } from "node:crypto"

/** The per-process secret. @category services */
export const ProcessSecret: Context.Reference<Buffer> = Context.Reference<Buffer>(
  "libtmux-mcp/services/ProcessSecret",
  {
    defaultValue: () => randomBytes(32)
  }
)
