/** split_window: a new pane beside or below an existing one, running the configured shell. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { PaneId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { orPaneNotFound } from "../../programs/pane.ts"
import { checkDirectory, parseSpawned, Spawned, spawnedFormat, StartDirectory } from "../../programs/spawn.ts"
import { ArgumentProblem } from "../../services/errors.ts"
import { TmuxSpawn } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

const directions = { below: ["-v"], above: ["-v", "-b"], right: ["-h"], left: ["-h", "-b"] } as const

/** @category tools */
export const split_window = defineTool(manifest.split_window, {
  description: "Split a pane; the new one runs the default shell in this MCP server's " +
    "working directory (not the split pane's) unless start_directory is given.",
  input: Schema.Struct({
    pane_id: PaneId,
    direction: Schema.optionalKey(
      Schema.Literals(["below", "above", "right", "left"]).annotate({
        description: "where the new pane goes (default below)"
      })
    ),
    size_percent: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 99 })).annotate({ description: "size in percent" })
    ),
    size_cells: Schema.optionalKey(
      Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 10_000 })).annotate({ description: "size in cells" })
    ),
    start_directory: Schema.optionalKey(StartDirectory),
    select: Schema.optionalKey(Schema.Boolean.annotate({ description: "make it active (default false)" }))
  }),
  output: Spawned,
  run: (input) =>
    Effect.gen(function*() {
      if (input.size_percent !== undefined && input.size_cells !== undefined) {
        return yield* new ArgumentProblem({ detail: "give size_percent or size_cells, not both" })
      }
      const cwd = yield* checkDirectory(input.start_directory)
      const size = input.size_percent !== undefined
        ? [`${input.size_percent}%`]
        : input.size_cells !== undefined
        ? [String(input.size_cells)]
        : []
      const tmux = yield* TmuxSpawn
      const stdout = yield* tmux.run([[
        "split-window",
        ...directions[input.direction ?? "below"],
        ...(input.select === true ? [] : ["-d"]),
        ...(size.length === 0 ? [] : ["-l", ...size]),
        "-P",
        "-F",
        spawnedFormat,
        "-t",
        input.pane_id
      ]], cwd).pipe(orPaneNotFound(input.pane_id))
      return yield* parseSpawned("split-window", stdout)
    })
})
