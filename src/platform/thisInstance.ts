/**
 * This process's tag (platform/Proc.ts), as a value for the code that names its leftovers with it
 * outside an Effect. Reads /proc once, on import; it grants nothing (no tmux, no process), so the
 * boundary check lets programs import it.
 */
import { liveProc } from "./Proc.ts"

/** This process's tag: `<pid>.<start>.<namespace>` (domain/instance.ts). */
export const thisTag: string = liveProc().tag
