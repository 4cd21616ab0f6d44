/**
 * Heap management for a long-running stdio server, applied before anything else is loaded.
 *
 * V8 doubles its young generation under allocation bursts and keeps the pages, and collects the old
 * generation only when it has grown well past its live size; with bursts of tool calls the process's
 * resident memory climbs by tens of MB while the live heap stays near 12 MB. So: the young
 * generation keeps its initial size (the growth-factor flag is read whenever the space would grow,
 * so setting it at run time works), and a full collection runs between calls at most every two
 * seconds of activity, and once the server has been idle for a second. A collection of the ~12 MB
 * live heap takes a few milliseconds. Measured in bench/control-loop.ts.
 */
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

setFlagsFromString("--semi-space-growth-factor=1")
setFlagsFromString("--expose-gc")
// The context that exposes gc is made at the first collection, not at startup (it costs milliseconds).
let collect: (() => void) | undefined

let timer: ReturnType<typeof setTimeout> | undefined
let collected = performance.now()

const collectNow = () => {
  collected = performance.now()
  collect ??= runInNewContext("gc") as () => void
  collect()
}

/**
 * Called after each call: collects right after the response when two seconds passed since the last
 * collection and no call is running, and otherwise after a second without calls. `busy` says
 * whether a call is running.
 */
export const collectWhenIdle = (busy: () => boolean): void => {
  if (timer !== undefined) clearTimeout(timer)
  if (performance.now() - collected > 2000) {
    // After the response has been written, not before.
    setImmediate(() => busy() ? undefined : collectNow())
    return
  }
  timer = setTimeout(() => {
    timer = undefined
    if (!busy()) collectNow()
  }, 1000)
  timer.unref()
}
