/** create_window: a new window in a session, running the configured shell. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { literalizeFormat } from "../../domain/names.ts"
import { manifest } from "../../manifest/index.ts"
import { checkDirectory, parseSpawned, Spawned, spawnedFormat, StartDirectory } from "../../programs/spawn.ts"
import { Name, resolveSession, sessionTargetFields } from "../../programs/targets.ts"
import { TmuxSpawn } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const create_window = defineTool(manifest.create_window, {
  description: "Create a window in a session. Its pane runs the default shell in this MCP " +
    "server's working directory (not the session's) unless start_directory is given.",
  input: Schema.Struct({
    ...sessionTargetFields,
    window_name: Schema.optionalKey(Name("name for the new window")),
    start_directory: Schema.optionalKey(StartDirectory),
    select: Schema.optionalKey(Schema.Boolean.annotate({ description: "make it current (default false)" }))
  }),
  output: Spawned,
  run: (input) =>
    Effect.gen(function*() {
      const session = yield* resolveSession(input)
      const cwd = yield* checkDirectory(input.start_directory)
      const tmux = yield* TmuxSpawn
      const stdout = yield* tmux.run([[
        "new-window",
        ...(input.select === true ? [] : ["-d"]),
        "-P",
        "-F",
        spawnedFormat,
        "-t",
        `${session.session_id}:`,
        ...(input.window_name === undefined ? [] : ["-n", literalizeFormat(input.window_name)])
      ]], cwd)
      return yield* parseSpawned("new-window", stdout)
    })
})
