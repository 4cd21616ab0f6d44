/**
 * What the spawn tools share. A start directory is checked here and reaches tmux as the tmux
 * client's working directory, never as `-c` (where tmux would expand formats and run `#(...)`);
 * names reach `-n`/`-s` literalized.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { stat } from "node:fs/promises"
import { isAbsolute } from "node:path"
import { ArgumentProblem } from "../services/errors.ts"
import { FS } from "../services/TmuxReads.ts"
import { intVariable, stringVariable } from "./variables.ts"

/** The optional start directory parameter. @category schemas */
export const StartDirectory = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(4096)).annotate({
  description: "absolute path"
})

/** Checks a start directory; the result is the tmux client's `cwd`. */
export const checkDirectory = (directory: string | undefined) =>
  Effect.gen(function*() {
    if (directory === undefined) return {}
    const problem = (detail: string) => new ArgumentProblem({ detail: `start_directory ${detail}` })
    if (!isAbsolute(directory)) return yield* problem("must be an absolute path")
    const info = yield* Effect.tryPromise({
      try: () => stat(directory),
      catch: () => problem("does not exist or cannot be read")
    })
    if (!info.isDirectory()) return yield* problem("is not a directory")
    return { cwd: directory }
  })

/** The `-P -F` format that makes a spawn print the new objects' IDs. */
export const spawnedFormat = ["#{session_id}", "#{session_name}", "#{window_id}", "#{window_index}", "#{pane_id}"].join(
  FS
)

/** Decodes what `spawnedFormat` printed. */
export const parseSpawned = (stdout: string) => {
  const [session_id = "", session_name = "", window_id = "", window_index = "0", pane_id = ""] = stdout.trimEnd().split(
    FS
  )
  return { session_id, session_name, window_id, window_index: Number.parseInt(window_index, 10), pane_id }
}

/** The IDs a spawn returns. @category schemas */
export const Spawned = Schema.Struct({
  session_id: stringVariable("session_id"),
  session_name: stringVariable("session_name"),
  window_id: stringVariable("window_id"),
  window_index: intVariable("window_index"),
  pane_id: stringVariable("pane_id")
})
