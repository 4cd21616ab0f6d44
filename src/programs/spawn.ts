/**
 * What the spawn tools share. A start directory is checked here and reaches tmux as the tmux
 * client's working directory, never as `-c` (where tmux would expand formats and run `#(...)`);
 * names reach `-n`/`-s` literalized.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { stat } from "node:fs/promises"
import { isAbsolute } from "node:path"
import { ArgumentProblem, TmuxCommandFailed } from "../services/errors.ts"
import { type Fields, formatOf, parseRows } from "../services/TmuxReads.ts"
import { idVariable, intVariable, stringVariable } from "./variables.ts"

/** The optional start directory parameter. @category schemas */
export const StartDirectory = Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(4096)).annotate({
  description: "absolute path"
})

/** Checks a start directory; the result is the tmux client's `cwd`. */
export const checkDirectory = Effect.fn("spawn.checkDirectory")(function*(directory: string | undefined) {
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

/** What a spawn prints of the objects it made. */
const spawnedFields = {
  session_id: "session-id",
  session_name: "string",
  window_id: "window-id",
  window_index: "int",
  pane_id: "pane-id"
} as const satisfies Fields

/** The `-P -F` format that makes a spawn print the new objects' IDs. */
export const spawnedFormat = formatOf(spawnedFields)

/** Decodes what `spawnedFormat` printed: the IDs checked and branded. */
export const parseSpawned = (command: "new-session" | "new-window" | "split-window", stdout: string) =>
  Effect.flatMap(parseRows(spawnedFields, command, stdout), ([row]) =>
    row === undefined
      ? Effect.fail(new TmuxCommandFailed({ command, exitCode: 0, stderr: "printed none of the new objects' IDs" }))
      : Effect.succeed(row))

/** The IDs a spawn returns. @category schemas */
export const Spawned = Schema.Struct({
  session_id: idVariable("session_id"),
  session_name: stringVariable("session_name"),
  window_id: idVariable("window_id"),
  window_index: intVariable("window_index"),
  pane_id: idVariable("pane_id")
})
