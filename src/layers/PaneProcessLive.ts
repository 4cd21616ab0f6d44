/**
 * Foreground detection from /proc: field 8 of /proc/<pid>/stat is the foreground process group of
 * the process's controlling terminal; an interactive shell at its prompt is its own foreground
 * group. Elsewhere than Linux this answers `undefined` and callers fall back to tmux's view.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { readFileSync } from "node:fs"
import { type Foreground, PaneProcess } from "../services/PaneProcess.ts"

// /proc reads never block on a disk: read them synchronously, without a threadpool round trip.
const stat = (pid: number) =>
  Effect.try(() => readFileSync(`/proc/${pid}/stat`, "utf8")).pipe(
    Effect.map((text) => {
      // The command name is in parentheses and may itself hold spaces or parentheses.
      const open = text.indexOf("(")
      const close = text.lastIndexOf(")")
      const fields = text.slice(close + 2).split(" ")
      return { comm: text.slice(open + 1, close), tpgid: Number(fields[5]) }
    }),
    Effect.option
  )

const foreground = (panePid: number): Effect.Effect<Foreground | undefined> =>
  Effect.gen(function*() {
    const shell = yield* stat(panePid)
    if (shell._tag === "None") return undefined
    const { comm, tpgid } = shell.value
    if (tpgid === panePid) return { shell: comm, shellInForeground: true, foreground: comm }
    const leader = yield* stat(tpgid)
    return { shell: comm, shellInForeground: false, foreground: leader._tag === "Some" ? leader.value.comm : `process group ${tpgid}` }
  })

/** The live reader. @category layers */
export const layer: Layer.Layer<PaneProcess> = Layer.succeed(PaneProcess, PaneProcess.of({ foreground }))
