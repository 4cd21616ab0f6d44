/** get_tmux_variables: the values of named tmux format variables, in a pane's context. */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { PaneId } from "../../domain/ids.ts"
import { manifest } from "../../manifest/index.ts"
import { variableFormat, variableNamePattern } from "../../programs/formats.ts"
import { orPaneNotFound, readPane } from "../../programs/pane.ts"
import { idVariable } from "../../programs/variables.ts"
import { TmuxObserve } from "../../services/Tmux.ts"
import { defineTool } from "../define.ts"

/** @category tools */
export const get_tmux_variables = defineTool(manifest.get_tmux_variables, {
  description: "tmux format variables (pane_current_path, version ...) as a pane sees them; unknown ones read empty.",
  input: Schema.Struct({
    pane_id: PaneId,
    names: Schema.Array(
      Schema.String.annotate({ description: "e.g. pane_current_path" }).check(
        Schema.isMaxLength(64),
        Schema.isPattern(variableNamePattern)
      )
    ).annotate({ description: "variable names" }).check(Schema.isMinLength(1), Schema.isMaxLength(32))
  }),
  output: Schema.Struct({
    pane_id: idVariable("pane_id"),
    variables: Schema.Record(Schema.String, Schema.String).annotate({
      description: "each name asked for and its value (empty when unknown)"
    })
  }),
  run: (input) =>
    Effect.gen(function*() {
      const tmux = yield* TmuxObserve
      // A missing pane expands every variable to "": ask first, so it is an error, not empty values.
      yield* readPane(input.pane_id, { pane_id: "string" })
      const values = yield* Effect.forEach(
        input.names,
        (name) =>
          Effect.map(
            tmux.run([["display-message", "-p", "-t", input.pane_id, variableFormat(name)]]).pipe(
              orPaneNotFound(input.pane_id)
            ),
            (stdout) => [name, stdout.replace(/\n$/u, "")] as const
          ),
        { concurrency: 4 }
      )
      return { pane_id: input.pane_id, variables: Object.fromEntries(values) }
    })
})
