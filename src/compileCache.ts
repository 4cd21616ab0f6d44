/**
 * Node's module compile cache for the server's own code, in a folder of the user's: a cold start
 * then reads V8's compiled code instead of compiling the bundle again. Best effort: a folder that
 * cannot be made or written leaves the start as it was (Node reports, it does not throw), and
 * `NODE_DISABLE_COMPILE_CACHE=1` turns it off.
 */
import { enableCompileCache } from "node:module"
import { isAbsolute, join } from "node:path"

/**
 * `$XDG_CACHE_HOME/libtmux-mcp/compile-cache`, else `~/.cache/libtmux-mcp/compile-cache`;
 * none without an absolute base.
 */
export const compileCacheFolder = (env: Readonly<Record<string, string | undefined>>): string | undefined => {
  const cache = env.XDG_CACHE_HOME
  if (cache !== undefined && isAbsolute(cache)) return join(cache, "libtmux-mcp", "compile-cache")
  const home = env.HOME
  return home !== undefined && isAbsolute(home) ? join(home, ".cache", "libtmux-mcp", "compile-cache") : undefined
}

/** Turns the cache on for modules loaded after this call. */
export const useCompileCache = (env: Readonly<Record<string, string | undefined>>): void => {
  const folder = compileCacheFolder(env)
  if (folder === undefined) return
  try {
    enableCompileCache(folder)
  } catch {
    // An older Node without the API, or a folder it refuses: start without the cache.
  }
}
