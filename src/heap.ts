/**
 * Heap management for a long-running stdio server, applied before anything else is loaded.
 *
 * V8 doubles its young generation under allocation bursts and keeps the pages, and collects the old
 * generation only when it has grown well past its live size; with bursts of tool calls the process's
 * resident memory climbs by tens of MB while the live heap stays near 12 MB. So: the young
 * generation keeps its initial size (the growth-factor flag is read whenever the space would grow,
 * so setting it at run time works), and a full collection runs once the server has been idle for a
 * second after a burst. Measured in bench/control-loop.ts.
 */
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"

setFlagsFromString("--semi-space-growth-factor=1")
setFlagsFromString("--expose-gc")
const collect = runInNewContext("gc") as () => void

let timer: ReturnType<typeof setTimeout> | undefined

/**
 * Asks for a full collection after a second without calls (one pending at a time); `busy` says
 * whether a call is running then, in which case the next call's end asks again.
 */
export const collectWhenIdle = (busy: () => boolean): void => {
  if (timer !== undefined) clearTimeout(timer)
  timer = setTimeout(() => {
    timer = undefined
    if (!busy()) collect()
  }, 1000)
  timer.unref()
}
