/**
 * Heap management for a long-running stdio server, applied before anything else is loaded.
 *
 * V8 doubles its young generation under allocation bursts and keeps the pages, and collects the old
 * generation only when it has grown well past its live size; with bursts of tool calls the process's
 * resident memory climbs by tens of MB while the live heap stays near 12 MB. So: the young
 * generation keeps its initial size (the growth-factor flag is read whenever the space would grow,
 * so setting it at run time works), and a full collection runs between calls at most every two
 * seconds of activity, and once the server has been idle for a second, when the heap has grown 2 MB
 * since the last one. A collection of the ~12 MB live heap takes a few milliseconds (tens on a
 * loaded machine). Measured in bench/control-loop.ts and bench/pane-view.ts.
 */
import { getHeapStatistics, setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { makeCollector } from "./domain/collector.ts"

setFlagsFromString("--semi-space-growth-factor=1")
setFlagsFromString("--expose-gc")

// The context that exposes gc is made at the first collection, not at startup (it costs milliseconds).
let gc: (() => void) | undefined

/** The server's collector: real time, real timers (which never keep the process alive), V8's gc. */
export const collectWhenIdle = makeCollector({
  now: () => performance.now(),
  heapUsed: () => {
    const heap = getHeapStatistics()
    return heap.used_heap_size + heap.external_memory
  },
  later: (run, ms) => {
    const timer = setTimeout(run, ms)
    timer.unref()
    return { cancel: () => clearTimeout(timer) }
  },
  afterResponse: (run) => void setImmediate(run),
  collect: () => {
    gc ??= runInNewContext("gc") as () => void
    gc()
  }
})
