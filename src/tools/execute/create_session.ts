/** create_session: a new detached session running the configured shell; starts the server if needed. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { literalizeFormat } from "../../domain/names.ts"
import { manifest } from "../../manifest/index.ts"
import { emptyWhenNoServer, listSessionRows } from "../../programs/hierarchy.ts"
import { checkDirectory, parseSpawned, Spawned, spawnedFormat, StartDirectory } from "../../programs/spawn.ts"
import { Name } from "../../programs/targets.ts"
import { usually } from "../../programs/usual.ts"
import { SessionExists, type TmuxCommandFailed } from "../../services/errors.ts"
import { TmuxSpawn } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

const Size = (what: string) =>
  Schema.Int.check(Schema.isBetween({ minimum: 2, maximum: 2000 })).annotate({ description: `${what} in cells` })

/** @category tools */
export const create_session = defineTool(manifest.create_session, {
  description: "Create a detached session (and the tmux server when none runs). Its pane " +
    "runs the default shell in this MCP server's working directory unless " +
    "start_directory is given; use run_shell_command next. Names are stored literally.",
  input: Schema.Struct({
    session_name: Schema.optionalKey(Name("default: tmux picks one")),
    window_name: Schema.optionalKey(Name("name for the first window")),
    start_directory: Schema.optionalKey(StartDirectory),
    width: Schema.optionalKey(Size("width")),
    height: Schema.optionalKey(Size("height"))
  }),
  output: Schema.Struct({
    ...Spawned.fields,
    server_started: usually(
      Schema.Boolean.annotate({
        description: "true: this call started the tmux server (with this server's configuration)"
      }),
      false,
      "the tmux server was already running"
    ),
    server_provenance: Schema.String.annotate({
      description: "who started the tmux server and with which configuration, as recorded " +
        "on it (a record anyone on the socket could write), or unknown"
    })
  }),
  run: (input) =>
    Effect.gen(function*() {
      const cwd = yield* checkDirectory(input.start_directory)
      const name = input.session_name
      if (name !== undefined) {
        const sessions = yield* emptyWhenNoServer(listSessionRows)
        if (sessions.some((session) => session.session_name === name)) return yield* new SessionExists({ name })
      }
      const args = [
        "-d",
        "-P",
        "-F",
        spawnedFormat,
        ...(name === undefined ? [] : ["-s", literalizeFormat(name)]),
        ...(input.window_name === undefined ? [] : ["-n", literalizeFormat(input.window_name)]),
        ...(input.width === undefined ? [] : ["-x", String(input.width)]),
        ...(input.height === undefined ? [] : ["-y", String(input.height)])
      ]
      const tmux = yield* TmuxSpawn
      const created = yield* tmux.create([["new-session", ...args]], cwd).pipe(
        Effect.catchTag("TmuxCommandFailed", (error): Effect.Effect<never, SessionExists | TmuxCommandFailed> =>
          name !== undefined && error.refusal._tag === "DuplicateSession"
            ? Effect.fail(new SessionExists({ name }))
            : Effect.fail(error))
      )
      return {
        ...(yield* parseSpawned("new-session", created.stdout)),
        server_started: created.startedServer,
        server_provenance: created.provenance
      }
    })
})
