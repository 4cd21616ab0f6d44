#!/usr/bin/env node
/** The `libtmux-mcp` command: the compile cache goes on before the server's code loads. */
import "./heap.ts"
import { useCompileCache } from "./compileCache.ts"

useCompileCache(process.env)
const { main } = await import("./main.ts")
main()
