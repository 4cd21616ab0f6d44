#!/usr/bin/env node
/**
 * The `libtmux-mcp` command. An older Node fails while linking the server's modules, before any of
 * their code runs (a static import is resolved first), with a stack trace a client never shows; so
 * this entry checks the Node first, imports nothing that an old Node cannot load, and loads the
 * server with a dynamic import, whose failure is reported in one line.
 */
import { nodeNewEnough, oldNodeLine } from "./domain/nodeFloor.ts"
import { reportFailure } from "./failure.ts"

if (nodeNewEnough(process.versions.node)) {
  import("./start.ts").then(({ start }) => start()).catch((error: unknown) =>
    reportFailure("loading the server", error)
  )
} else {
  process.stderr.write(`${oldNodeLine(process.versions.node, process.execPath)}\n`)
  process.exitCode = 1
}
