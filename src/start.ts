/**
 * The server's start, loaded by the entry once the Node is known to be new enough: heap settings
 * first, then the compile cache, which covers the server's code loaded after it.
 */
import "./heap.ts"
import { useCompileCache } from "./compileCache.ts"
import { packaged } from "./platform/packaged.ts"

/** Turns the compile cache on, then loads and runs the server. */
export const start = async (): Promise<void> => {
  // The single executable has no module files for the cache to cover (its code cache is built in).
  if (!packaged) useCompileCache(process.env)
  const { main } = await import("./main.ts")
  main()
}
