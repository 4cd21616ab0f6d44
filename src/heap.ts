/**
 * Heap sizing for a long-running stdio server, applied before anything else is loaded: V8 doubles
 * its young generation under allocation bursts and keeps the pages, so resident memory climbs with
 * every burst of tool calls. A growth factor of 1 keeps the young generation at its initial size;
 * measured in bench/control-loop.ts. (The flag is read when the space grows, so setting it at run
 * time works.)
 */
import { setFlagsFromString } from "node:v8"

setFlagsFromString("--semi-space-growth-factor=1")
