/**
 * Runs once before the suite: stops it at once, with one line, when TMPDIR is too long for the
 * tests' sockets (every test's tmux sockets and the server's locks live in folders under it, and a
 * Unix socket path holds at most 107 bytes), instead of letting tests fail one by one. Then makes
 * the one compile cache the run's server processes share, as a user's servers share theirs.
 */
import { mkdtempSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { serverCacheVariable } from "./mcp.ts"
import { socketRoom } from "./tmux.ts"

/** The longest a Unix socket path may be (sun_path holds 108 bytes with its terminator). */
const socketPathLimit = 107

export default () => {
  const dir = realpathSync(tmpdir())
  const bytes = Buffer.byteLength(dir)
  if (bytes + socketRoom > socketPathLimit) {
    process.stderr.write(
      `TMPDIR ${dir} is ${bytes} bytes, too long for the tests: their sockets take up to ${socketRoom} ` +
        `bytes more and a socket path holds at most ${socketPathLimit} bytes; use a TMPDIR of at most ` +
        `${socketPathLimit - socketRoom} bytes\n`
    )
    process.exit(1)
  }
  // A cold start compiles the bundle again: about 66 ms of processor time, for each of some 460 servers.
  // The test workers start after this and inherit the variable.
  const cache = mkdtempSync(join(dir, "server-cache-"))
  process.env[serverCacheVariable] = cache
  return () => rmSync(cache, { recursive: true, force: true })
}
